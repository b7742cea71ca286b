/** The CLI's factory: what it makes, when it makes it, and that what a test hands in is what the commands get. */
import { describe, expect, test } from "bun:test";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { makeCli } from "../../src/cli/factory.ts";
import type { Io } from "../../src/cli/io.ts";
import { MemoryRecord } from "../../src/record/append.ts";
import { fixedClock, tempDir } from "../support/fixtures.ts";

function bufferIo(): Io {
  return {
    out: () => {},
    err: () => {},
    stdoutIsTTY: false,
    stdinIsTTY: false,
    readStdin: async () => "",
    readLine: () => "",
    env: { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
  };
}

describe("the factory", () => {
  test("makes the catalogue only when asked, once", () => {
    let made = 0;
    const cli = makeCli({
      io: bufferIo(),
      catalogue: () => {
        made++;
        return builtinCatalogue();
      },
    });
    expect(made).toBe(0);
    expect(cli.catalogue).toBe(cli.catalogue);
    expect(made).toBe(1);
  });

  test("makes a person's dependencies once, over the clock and the dirs it was given", () => {
    const io = bufferIo();
    const clock = fixedClock(1_700_000_000_000);
    const cli = makeCli({ io, clock });
    const deps = cli.deps();
    expect(cli.deps()).toBe(deps);
    expect(deps.clock.now()).toBe(1_700_000_000_000);
    expect(deps.dirs).toEqual({ data: io.env.RTA_DATA_DIR as string, config: io.env.RTA_CONFIG_DIR as string });
  });

  test("makes a server's dependencies afresh, with its own record", () => {
    const cli = makeCli({ io: bufferIo(), clock: fixedClock(5) });
    const record = new MemoryRecord();
    const deps = cli.serverDeps(record, [tempDir()]);
    expect(deps).not.toBe(cli.deps());
    expect(deps.record).toBe(record);
    expect(deps.clock.now()).toBe(5);
  });

  test("starts with the ok status", () => {
    expect(makeCli({ io: bufferIo() }).status).toBe(0);
  });
});
