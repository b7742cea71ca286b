/**
 * Who is at the other end of a Unix socket: the peer's uid, by
 * getsockopt(SO_PEERCRED) through libc, loaded at the first ask. Where libc
 * cannot be reached (not Linux with glibc) the answer is undefined, and the
 * channel refuses the connection: it is a person's, and unchecked it is no one's.
 */

type GetSockOpt = (fd: number, level: number, name: number, value: Uint8Array, length: Uint8Array) => number;

let getsockopt: GetSockOpt | null | undefined;

function load(): GetSockOpt | null {
  if (getsockopt !== undefined) return getsockopt;
  getsockopt = null;
  if (process.platform !== "linux") return getsockopt;
  try {
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = dlopen("libc.so.6", {
      getsockopt: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    });
    getsockopt = (fd, level, name, value, length) => symbols.getsockopt(fd, level, name, value, length);
  } catch {
    getsockopt = null;
  }
  return getsockopt;
}

const SOL_SOCKET = 1;
const SO_PEERCRED = 17;

/** The uid of the process at the other end of the Unix socket `fd`; undefined when it cannot be read. Refuses nothing. */
export function peerUid(fd: number): number | undefined {
  const call = load();
  if (call === null || !Number.isInteger(fd) || fd < 0) return undefined;
  // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: three 32-bit fields
  const cred = new Uint8Array(12);
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, 12, true);
  if (call(fd, SOL_SOCKET, SO_PEERCRED, cred, length) !== 0) return undefined;
  if (new DataView(length.buffer).getUint32(0, true) !== 12) return undefined;
  return new DataView(cred.buffer).getUint32(4, true);
}
