/** Paths in a search's results as the start was written, and the warning of what a walk skipped. */
import { describe, expect, test } from "bun:test";
import { asWritten, withSkipped } from "../../src/capabilities/fs/walkNotes.ts";
import { table } from "../../src/core/result.ts";

describe("asWritten", () => {
  test("keeps the start as written: relative, ./, absolute, a trailing slash, the root, and the default", () => {
    expect(asWritten("src/cli", "x.ts")).toBe("src/cli/x.ts");
    expect(asWritten("./src", "a/b.ts")).toBe("./src/a/b.ts");
    expect(asWritten("/srv/app/", "x.ts")).toBe("/srv/app/x.ts");
    expect(asWritten("src//", "x.ts")).toBe("src/x.ts");
    expect(asWritten("/", "etc/hosts")).toBe("/etc/hosts");
    expect(asWritten("./", "x.ts")).toBe("./x.ts");
    expect(asWritten(".", "x.ts")).toBe("x.ts");
    expect(asWritten("", "x.ts")).toBe("x.ts");
  });
});

describe("withSkipped", () => {
  test("nothing skipped leaves the result as it was; one or more is one warning, in the singular or plural", () => {
    expect(withSkipped(table(["a"], []), 0, "src")).toEqual(table(["a"], []));
    expect(withSkipped(table(["a"], []), 1, ".")).toMatchObject({
      warnings: [{ code: "fs.walk.skipped", message: "1 entry could not be read (permission denied) and was skipped" }],
    });
    expect(withSkipped(table(["a"], []), 3, "src")).toMatchObject({
      warnings: [
        {
          code: "fs.walk.skipped",
          message: '3 entries under "src" could not be read (permission denied) and were skipped',
        },
      ],
    });
  });
});
