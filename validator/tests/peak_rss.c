/* pc_peak_rss COMMAND [ARG ...]: run COMMAND, print its peak resident set in KiB (wait4's
 * ru_maxrss) and exit with its exit code. Used by cli/memory_bound.sh: a memory bound checked
 * without timing anything. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: pc_peak_rss COMMAND [ARG ...]\n"); return 2; }
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) return 2;
    printf("%ld\n", ru.ru_maxrss);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
