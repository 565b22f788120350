#!/usr/bin/env python3
"""tests/host/helper-peer.py: a fake peer of the helper <-> server protocol
(proto/proto.h) for tests/host/helper.suite.

  helper-peer.py server MODE SOCKET   listen on SOCKET, take one connection (one
                                      request from mount.fuse.ext4), then MODE:
      close        close without an answer (a server dying mid-handshake)
      stall        never answer
      badmagic     a verdict with a bad magic number
      oversized    a packet longer than any message
      fdverdict    a valid "ok" verdict carrying an fd
      truncated    a verdict whose text runs past the packet
  helper-peer.py client MODE SOCKET   connect to a server, send one bad REQUEST
                                      (garbage, nofds, threefds, notfuse,
                                      oversized, nul), print its answer:
                                      "verdict ERRNO TEXT" or "closed"
"""
import os
import socket
import struct
import sys
import time

MAGIC, VERSION = 0x50433445, 1
REQUEST, VERDICT = 1, 2


def message(mtype, payload, reserved=0):
    return struct.pack('<IHHII', MAGIC, VERSION, mtype, len(payload), reserved) + payload


def request(options=b'', source=b'/dev/fake', flags=0):
    return message(REQUEST, struct.pack('<IHH', flags, len(options), len(source)) + options + source)


def verdict(error=0, flags=0, text=b'', textlen=None):
    tl = len(text) if textlen is None else textlen
    return message(VERDICT, struct.pack('<iIHH', error, flags, tl, 0) + text)


def serve_one(mode, path):
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    lsock.bind(path + '.tmp')
    os.rename(path + '.tmp', path)  # appears only once it listens
    lsock.listen(1)
    conn, _ = lsock.accept()
    _, fds, _, _ = socket.recv_fds(conn, 65536, 8)
    for fd in fds:
        os.close(fd)
    if mode == 'stall':
        time.sleep(3600)
    elif mode == 'badmagic':
        conn.send(struct.pack('<I', 0xdeadbeef) + verdict()[4:])
    elif mode == 'oversized':
        conn.send(verdict(text=b'x' * 4000) + b'y' * 8000)
    elif mode == 'fdverdict':
        socket.send_fds(conn, [verdict(flags=2)], [os.open('/dev/null', os.O_RDONLY)])
    elif mode == 'truncated':
        conn.send(verdict(error=22, text=b'short', textlen=900))
    conn.close()


def bad_request(mode, path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sock.connect(path)
    fuse = os.open('/dev/fuse', os.O_RDWR)
    img = os.open('/dev/null', os.O_RDONLY)
    if mode == 'garbage':
        sock.send(os.urandom(40))
    elif mode == 'nofds':
        sock.send(request())
    elif mode == 'threefds':
        socket.send_fds(sock, [request()], [fuse, img, img])
    elif mode == 'notfuse':
        socket.send_fds(sock, [request()], [img, img])
    elif mode == 'oversized':
        socket.send_fds(sock, [request(options=b'x' * 4000, source=b'y' * 4095) + b'z' * 400],
                        [fuse, img])
    elif mode == 'nul':
        socket.send_fds(sock, [request(options=b'ro\0rw')], [fuse, img])
    sock.settimeout(30)
    data = sock.recv(65536)
    if len(data) < 28:
        print('closed')
        return
    error, _, tl, _ = struct.unpack('<iIHH', data[16:28])
    print('verdict', error, data[28:28 + tl].decode())


if __name__ == '__main__':
    role, mode, path = sys.argv[1:4]
    (serve_one if role == 'server' else bad_request)(mode, path)
