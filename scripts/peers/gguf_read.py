"""Peer in bench-peers: gguf-py's GGUFReader parsing a GGUF file's header and tensor infos."""
import sys

from gguf import GGUFReader

r = GGUFReader(sys.argv[1])
print(len(r.tensors), len(r.fields))
