/* server/fdio.h: a libext2fs io_manager on an already-open file descriptor. */
#ifndef EC_FDIO_H
#define EC_FDIO_H

#include <ext2fs/ext2fs.h>

/* The manager; open it with the name produced by ec_fdio_name(). */
extern io_manager ec_fdio_manager;

/* Writes "fd:N" into buf (the only name ec_fdio_manager opens). */
void ec_fdio_name(int fd, char *buf, size_t len);

#endif
