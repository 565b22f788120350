/* server/notify.h: readiness and status for systemd (Type=notify) from inside
 * the sandbox. */
#ifndef EC_NOTIFY_H
#define EC_NOTIFY_H

/* Before the sandbox: connects to the socket NOTIFY_SOCKET names (and removes
 * the variable). Without it, nothing happens here or in ec_notify. */
void ec_notify_open(void);
/* Sends one sd_notify(3) message ("READY=1\nSTATUS=...", one assignment per
 * line), cut to the 4095 bytes systemd reads: put STATUS= last. */
void ec_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
