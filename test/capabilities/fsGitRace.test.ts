/**
 * A git dir made by two writes at once. The gate refuses the entry that would
 * make a directory a git dir, asking before the write; but a second server on
 * the same root can add another of the marks between that question and the
 * write, and then neither saw the other's. Here the second server is the
 * record: its `run` line is written between the gate and the capability, and
 * the sink adds the other mark then.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { RacingRecord, racingCaller } from "../support/racingRecord.ts";

let root = "";
let race: RacingRecord;
let call: ReturnType<typeof racingCaller>;

beforeEach(() => {
  root = realpathSync(tempDir());
  mkdirSync(join(root, "d"));
  writeFileSync(join(root, "d/HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(root, "d/config"), "[core]\n\tpager = ./planted.sh\n");
  mkdirSync(join(root, "stage/objects"), { recursive: true });
  race = new RacingRecord();
  call = racingCaller(root, race);
});

const otherMakesRefs = () => mkdirSync(join(root, "d/refs"));

describe("the last mark of a git dir, made while another server makes the one before", () => {
  test("fs.mkdir: refused, and what it made is gone", async () => {
    race.meanwhile = otherMakesRefs;
    expect(await call("fs_mkdir", { path: "d/objects" })).toBe("core.path.withheld");
    expect(existsSync(join(root, "d/objects"))).toBe(false);
  });

  test("fs.write: refused, and what it wrote is gone", async () => {
    race.meanwhile = otherMakesRefs;
    expect(await call("fs_write", { path: "d/objects", content: "x" })).toBe("core.path.withheld");
    expect(existsSync(join(root, "d/objects"))).toBe(false);
  });

  test("fs.move: refused, and what it moved is back where it was", async () => {
    race.meanwhile = otherMakesRefs;
    expect(await call("fs_move", { from: "stage/objects", to: "d/objects" })).toBe("core.path.withheld");
    expect(existsSync(join(root, "d/objects"))).toBe(false);
    expect(existsSync(join(root, "stage/objects"))).toBe(true);
  });

  test("with nothing made meanwhile, each is made as before", async () => {
    expect(await call("fs_mkdir", { path: "d/objects" })).toBe("ok");
    expect(await call("fs_write", { path: "d/notes.txt", content: "x" })).toBe("ok");
  });
});

describe("a mark already there when the gate looked, taken away and another made before the write lands", () => {
  // d holds HEAD, a planted config and a file named objects, so no write of objects makes it a git dir as the
  // gate sees it; meanwhile the other server removes that objects and makes refs (no git dir either), and then
  // the write's objects is the last mark of one whose config the agent wrote.
  const otherSwapsMarks = () => {
    rmSync(join(root, "d/objects"));
    mkdirSync(join(root, "d/refs"));
  };

  beforeEach(() => {
    writeFileSync(join(root, "d/objects"), "a file of that name\n");
  });

  test("fs.write over it: refused, and what it wrote is gone", async () => {
    race.meanwhile = otherSwapsMarks;
    expect(await call("fs_write", { path: "d/objects", content: "x", mode: "overwrite" })).toBe("core.path.withheld");
    expect(existsSync(join(root, "d/objects"))).toBe(false);
  });

  test("fs.move over it: refused, and what it moved is back where it was", async () => {
    race.meanwhile = otherSwapsMarks;
    expect(await call("fs_move", { from: "stage/objects", to: "d/objects", overwrite: true })).toBe(
      "core.path.withheld",
    );
    expect(existsSync(join(root, "d/objects"))).toBe(false);
    expect(existsSync(join(root, "stage/objects"))).toBe(true);
  });

  test("with nothing taken away meanwhile, it is written over as before", async () => {
    expect(await call("fs_write", { path: "d/objects", content: "x", mode: "overwrite" })).toBe("ok");
  });
});
