/**
 * The live catalogue: made again only when a watched file's identity
 * changed; a remake made at once is offered at once, one that must wait (a
 * plugin described) is offered once it resolves, and until then a list gets
 * the catalogue as it was, never waiting; a listener is told once per change
 * of the tools offered.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { Catalogue } from "../../src/core/catalogue.ts";
import { LiveCatalogue } from "../../src/upstreams/live.ts";
import { tempDir } from "../support/fixtures.ts";

const all = builtinCatalogue();
const fewer = new Catalogue(all.all().slice(1));
const tools = (c: Catalogue) => c.all().map((t) => t.tool);

/** A live catalogue over one watched file, with what `make` was asked and how often a listener was told. */
function watching(make: (changed: readonly string[]) => Catalogue | Promise<Catalogue>) {
  const file = join(tempDir(), "index.json");
  const asked: (readonly string[])[] = [];
  const live = new LiveCatalogue(all, [file], (changed) => {
    asked.push(changed);
    return make(changed);
  });
  let told = 0;
  const stop = live.onChange(() => told++);
  return { file, live, asked, told: () => told, stop };
}

describe("LiveCatalogue", () => {
  test("nothing changed: nothing is made and nobody told", () => {
    const w = watching(() => fewer);
    try {
      expect(tools(w.live.fresh(true))).toEqual(tools(all));
      expect(w.asked).toEqual([]);
      expect(w.told()).toBe(0);
    } finally {
      w.stop();
    }
  });

  test("a remake made at once is offered at once, told once, with the file that changed", () => {
    const w = watching(() => fewer);
    try {
      writeFileSync(w.file, "{}");
      expect(tools(w.live.fresh(true))).toEqual(tools(fewer));
      expect(w.asked).toEqual([[w.file]]);
      expect(w.told()).toBe(1);
      expect(tools(w.live.fresh(true))).toEqual(tools(fewer));
      expect(w.told()).toBe(1);
    } finally {
      w.stop();
    }
  });

  test("a remake that must wait leaves the catalogue as it was until it resolves, then is told once", async () => {
    let resolve: (c: Catalogue) => void = () => {};
    const pending = new Promise<Catalogue>((r) => (resolve = r));
    const w = watching(() => pending);
    try {
      writeFileSync(w.file, "{}");
      // the list is answered now, from what was offered
      expect(tools(w.live.fresh(true))).toEqual(tools(all));
      expect(w.live.byTool(all.all()[0]?.tool as string)).toBeDefined();
      expect(w.told()).toBe(0);
      resolve(fewer);
      await pending;
      await Bun.sleep(0);
      expect(w.told()).toBe(1);
      expect(tools(w.live.fresh(true))).toEqual(tools(fewer));
      expect(w.live.byTool(all.all()[0]?.tool as string)).toBeUndefined();
    } finally {
      w.stop();
    }
  });

  test("a remake that fails, or offers the same tools, changes nothing and tells nobody", async () => {
    let next: () => Catalogue | Promise<Catalogue> = () => Promise.reject(new Error("slow plugin"));
    const w = watching(() => next());
    try {
      writeFileSync(w.file, "{}");
      w.live.fresh(true);
      await Bun.sleep(0);
      expect(tools(w.live.fresh(true))).toEqual(tools(all));
      next = () => new Catalogue(all.all());
      writeFileSync(w.file, "{ }");
      w.live.fresh(true);
      expect(w.asked).toHaveLength(2);
      expect(w.told()).toBe(0);
    } finally {
      w.stop();
    }
  });
});
