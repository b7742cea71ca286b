/**
 * A name swapped for another kind of entry between the gate's look and the
 * write: a file for a link or a directory, a directory for a file, nothing for
 * something. The handle works on the name, so the OS says what is there now;
 * each is refused as a path that changed while it was opened, never as an
 * unexpected failure. Here the other server is the record: its `run` line is
 * written between the gate and the capability, and the sink swaps then.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { RacingRecord, racingCaller } from "../support/racingRecord.ts";

let root = "";
let race: RacingRecord;
let call: ReturnType<typeof racingCaller>;

beforeEach(() => {
  root = realpathSync(tempDir());
  writeFileSync(join(root, "other"), "not the file the gate saw\n");
  race = new RacingRecord();
  call = racingCaller(root, race);
});

const at = (name: string) => join(root, name);
const fileToLink = () => {
  rmSync(at("f"));
  symlinkSync("other", at("f"));
};
const fileToDir = () => {
  rmSync(at("f"));
  mkdirSync(at("f"));
};

describe("a file swapped meanwhile", () => {
  beforeEach(() => writeFileSync(at("f"), "as the gate saw it\n"));

  test("for a link: fs.write append refuses it, and the link's target is untouched", async () => {
    race.meanwhile = fileToLink;
    expect(await call("fs_write", { path: "f", content: "x", mode: "append" })).toBe("core.path.symlink");
    expect(readFileSync(at("other"), "utf8")).toBe("not the file the gate saw\n");
  });

  test("for a directory: fs.write overwrite and fs.rm refuse it", async () => {
    race.meanwhile = fileToDir;
    expect(await call("fs_write", { path: "f", content: "x", mode: "overwrite" })).toBe("core.path.symlink");
    writeFileSync(at("g"), "as the gate saw it\n");
    race.meanwhile = () => {
      rmSync(at("g"));
      mkdirSync(at("g"));
    };
    expect(await call("fs_rm", { path: "g" })).toBe("core.path.symlink");
  });
});

describe("a file swapped meanwhile for a FIFO a writer waits on", () => {
  /** Where the kernel has a process wait: a writer opening a FIFO no one reads waits for its partner. */
  const waitsIn = (pid: number) => readFileSync(`/proc/${pid}/wchan`, "utf8");

  test("fs.write append refuses it without opening it: the writer still waits", async () => {
    writeFileSync(at("f"), "as the gate saw it\n");
    expect(Bun.spawnSync(["mkfifo", at("pipe")]).exitCode).toBe(0);
    const writer = Bun.spawn(["sh", "-c", `echo hi > ${at("pipe")}`], { stdio: ["ignore", "ignore", "ignore"] });
    try {
      while (waitsIn(writer.pid) !== "wait_for_partner") await Bun.sleep(5);
      race.meanwhile = () => renameSync(at("pipe"), at("f"));
      expect(await call("fs_write", { path: "f", content: "x", mode: "append" })).toBe("core.path.symlink");
      // opened for reading, the FIFO would have let it go: woken, it waits there no more
      expect(waitsIn(writer.pid)).toBe("wait_for_partner");
    } finally {
      writer.kill();
    }
  });
});

describe("a directory swapped meanwhile", () => {
  test("for a file: fs.rm refuses it, and the file is kept", async () => {
    mkdirSync(at("d"));
    race.meanwhile = () => {
      rmSync(at("d"), { recursive: true });
      writeFileSync(at("d"), "made meanwhile\n");
    };
    expect(await call("fs_rm", { path: "d" })).toBe("core.path.symlink");
    expect(readFileSync(at("d"), "utf8")).toBe("made meanwhile\n");
  });
});

describe("the directory a name is in, removed meanwhile", () => {
  test("fs.write and fs.mkdir refuse it", async () => {
    mkdirSync(at("gone"));
    race.meanwhile = () => rmSync(at("gone"), { recursive: true });
    expect(await call("fs_write", { path: "gone/f", content: "x" })).toBe("core.path.symlink");
    mkdirSync(at("gone"));
    race.meanwhile = () => rmSync(at("gone"), { recursive: true });
    expect(await call("fs_mkdir", { path: "gone/d" })).toBe("core.path.symlink");
  });
});

describe("nothing, when the gate looked, made meanwhile", () => {
  test("fs.mkdir refuses it", async () => {
    race.meanwhile = () => mkdirSync(at("n"));
    expect(await call("fs_mkdir", { path: "n" })).toBe("core.path.symlink");
  });
});
