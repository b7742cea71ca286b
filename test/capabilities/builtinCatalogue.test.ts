import { afterEach, describe, expect, test } from "bun:test";
import { lazyBuiltins } from "../../src/capabilities/builtinCatalogue.ts";
import { builtins } from "../../src/capabilities/builtins.ts";
import { jwtDecode } from "../../src/capabilities/jwt/decode.ts";
import type { Capability, RunContext } from "../../src/core/capability.ts";

// The catalogue is made from declarations generated at build time (npm run gen): they must be the declarations
// builtins.ts holds, field for field, or the tool list, the cards and the gate would follow a stale copy.
describe("the built-ins as the catalogue holds them", () => {
  const withoutRun = (cap: Capability) => {
    const { run: _run, ...data } = cap;
    return data;
  };

  test("are the declarations of builtins.ts, in its order, without their code (else run npm run gen)", () => {
    const lazy = lazyBuiltins();
    expect(lazy.map((c) => c.name)).toEqual(builtins.map((c) => c.name));
    for (const [i, cap] of lazy.entries()) expect(withoutRun(cap)).toStrictEqual(withoutRun(builtins[i] as Capability));
  });

  const original = jwtDecode.run;
  afterEach(() => {
    jwtDecode.run = original;
  });

  test("run the module's own run when called, with the call's arguments and context", async () => {
    const seen: unknown[] = [];
    jwtDecode.run = async (args, ctx) => {
      seen.push(args, ctx);
      return { type: "text", text: "from the module" };
    };
    const cap = lazyBuiltins().find((c) => c.name === "jwt.decode") as Capability;
    expect(cap.run).not.toBe(jwtDecode.run);
    const ctx = { budget: 1 } as unknown as RunContext;
    expect(await cap.run({ token: "x" }, ctx)).toEqual({ type: "text", text: "from the module" });
    expect(seen).toEqual([{ token: "x" }, ctx]);
    // a second call finds the module loaded and still calls what is there now
    jwtDecode.run = async () => ({ type: "text", text: "replaced" });
    expect(await cap.run({ token: "y" }, ctx)).toEqual({ type: "text", text: "replaced" });
  });

  test("a run that throws is that call's failure, as the module's own would be", async () => {
    jwtDecode.run = async () => {
      throw new Error("boom");
    };
    const cap = lazyBuiltins().find((c) => c.name === "jwt.decode") as Capability;
    await expect(cap.run({}, {} as RunContext)).rejects.toThrow("boom");
  });
});
