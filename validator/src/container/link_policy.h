/* Which symbolic links inside a checkpoint folder are followed (README "Symbolic links").
 * A file packcheck finds by itself in a folder (shards, the index, config.json and the other
 * sidecars) must resolve inside the checkpoint's root: the folder itself or, for a Hugging Face
 * cache snapshot (<repo>/snapshots/<revision>/), the repo's cache folder, whose blobs/ the snapshot
 * links into. Paths the user names (INPUT itself, --config) are followed wherever they lead. */
#ifndef PC_LINK_POLICY_H
#define PC_LINK_POLICY_H

#include <stdbool.h>

/* The root for the folder dir (malloc'd), or NULL when dir does not resolve. */
char *pc_link_root(const char *dir);
/* false when path resolves to a place outside root; true inside, or when it does not resolve
 * (opening it then fails with its own message). */
bool pc_link_inside(const char *root, const char *path);

#endif
