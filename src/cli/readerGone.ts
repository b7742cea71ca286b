/**
 * Whether the reader of a pipe went away, asked without writing: `rta agent
 * log --follow | head -2` should end when head does, as `tail -f` does, not
 * at the next line the record gains, which may be hours later.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";

const POLLERR = 0x008;
const POLLHUP = 0x010;

type Poll = (fds: number, nfds: number, timeout: number) => number;

let poll: Poll | null | undefined;

function loadPoll(): Poll | null {
  if (poll !== undefined) return poll;
  try {
    const lib = process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6";
    const { symbols } = dlopen(lib, {
      poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
    });
    poll = (fds, nfds, timeout) => symbols.poll(fds, nfds, timeout);
  } catch {
    poll = null; // a libc that cannot be opened: the reader is known gone at the next write instead
  }
  return poll;
}

/**
 * A check that says true once nobody reads `fd` any more (the pipe's read
 * end closed: poll(2) reports POLLERR or POLLHUP on the write end). False for
 * a terminal or a file, and wherever poll(2) cannot be reached; refuses nothing.
 */
export function readerGone(fd: number): () => boolean {
  const call = loadPoll();
  if (call === null) return () => false;
  const pollfd = new Uint8Array(8); // struct pollfd { int fd; short events; short revents; }
  const view = new DataView(pollfd.buffer);
  return () => {
    view.setInt32(0, fd, true);
    view.setInt16(4, 0, true);
    view.setInt16(6, 0, true);
    if (call(ptr(pollfd) as unknown as number, 1, 0) < 1) return false;
    return (view.getInt16(6, true) & (POLLERR | POLLHUP)) !== 0;
  };
}
