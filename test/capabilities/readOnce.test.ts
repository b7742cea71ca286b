/**
 * fs.read's reads of one file: a range inside the last read is served from
 * its bytes, anything else is read from the file; the wrapper gives the
 * handle's `sent` and `stat`, and is of one shape whatever the handle.
 */
import { describe, expect, test } from "bun:test";
import { readOnce } from "../../src/capabilities/fs/readOnce.ts";

function counted(body: string) {
  const bytes = Buffer.from(body);
  const file = {
    sent: "a.txt",
    reads: [] as [number, number][],
    read(offset: number, length: number): Buffer {
      file.reads.push([offset, length]);
      return bytes.subarray(offset, offset + length);
    },
  };
  return file;
}

describe("readOnce", () => {
  test("a small file's head and then its whole is one read", () => {
    const file = counted("0123456789");
    const once = readOnce(file);
    expect(once.read(0, 10).toString()).toBe("0123456789");
    expect(once.read(0, 10).toString()).toBe("0123456789");
    expect(once.read(2, 3).toString()).toBe("234");
    expect(file.reads).toEqual([[0, 10]]);
    expect(once.sent).toBe("a.txt");
  });

  test("a range past what was read is read from the file", () => {
    const file = counted("0123456789");
    const once = readOnce(file);
    once.read(0, 4);
    expect(once.read(2, 4).toString()).toBe("2345");
    expect(once.read(8, 4).toString()).toBe("89");
    expect(file.reads).toEqual([
      [0, 4],
      [2, 4],
      [8, 4],
    ]);
  });

  test("every handle's wrapper is of one shape: its prototype is never the handle", () => {
    const a = readOnce(counted("0123"));
    const b = readOnce({ ...counted("4567"), stat: { size: 4 } });
    // a prototype per handle made a new shape per call, and the code reading it was compiled again and again
    expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
    expect(Object.keys(a)).toEqual(Object.keys(b));
    expect(b.stat).toEqual({ size: 4 });
  });

  test("a read that came back short is not taken as the file's end for a longer one", () => {
    const file = counted("0123456789");
    const once = readOnce(file);
    expect(once.read(8, 4).toString()).toBe("89");
    expect(once.read(8, 4).toString()).toBe("89");
    expect(file.reads.length).toBe(2);
  });
});
