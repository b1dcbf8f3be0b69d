/*
 * thp-collapse PID START END: asks the kernel to put every 2 MB chunk of [START, END) (hex
 * addresses) of another process on a transparent huge page (process_madvise with MADV_COLLAPSE,
 * Linux 6.1 or later, run as root). Used by thp-split.sh to give 2 MB pages to one part of a JVM's
 * memory (its code cache, or its heap) where -XX:+UseTransparentHugePages gives them to both.
 * A chunk no page of which was ever touched, or that spans memory of another kind, is refused
 * (EINVAL) and counted as failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: thp-collapse PID START END (hex)\n");
        return 2;
    }
    const unsigned long huge = 2UL << 20;
    int pid = atoi(argv[1]);
    unsigned long start = strtoul(argv[2], 0, 16) & ~(huge - 1);
    unsigned long end = strtoul(argv[3], 0, 16);
    int pidfd = syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) {
        perror("pidfd_open");
        return 1;
    }
    int collapsed = 0, failed = 0, lastError = 0;
    for (unsigned long chunk = start; chunk < end; chunk += huge) {
        struct iovec range = {(void *) chunk, huge};
        if (syscall(SYS_process_madvise, pidfd, &range, 1, MADV_COLLAPSE, 0) < 0) {
            failed++;
            lastError = errno;
        } else {
            collapsed++;
        }
    }
    printf("collapsed %d chunks, %d failed (last error %s)\n", collapsed, failed,
           failed ? strerror(lastError) : "-");
    return 0;
}
