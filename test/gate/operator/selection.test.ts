import { expect, test } from "bun:test";
import { RtaError } from "../../../src/core/errors.ts";
import { selection } from "../../../src/gate/operator/selection.ts";

test("exactly one way of choosing is taken; none or two is core.input.missing, a bad agent core.input.invalid", () => {
  expect(selection("g1", {}, "grant")).toEqual({ id: "g1" });
  expect(selection(undefined, { agent: "claude" }, "grant")).toEqual({ agent: "claude" });
  expect(selection(undefined, { all: true }, "lock")).toEqual({ all: true });
  for (const [id, opts, code] of [
    [undefined, {}, "core.input.missing"],
    ["g1", { all: true }, "core.input.missing"],
    [undefined, { agent: "a b" }, "core.input.invalid"],
  ] as const) {
    let thrown: unknown;
    try {
      selection(id, opts, "token");
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RtaError);
    expect((thrown as RtaError).code).toBe(code);
  }
});
