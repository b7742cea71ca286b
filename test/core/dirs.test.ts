import { expect, test } from "bun:test";
import { isAbsolute } from "node:path";
import { dirs } from "../../src/core/dirs.ts";

test("RTA_DATA_DIR and RTA_CONFIG_DIR override the platform's places, made absolute", () => {
  const d = dirs({ RTA_DATA_DIR: "/srv/rta/data", RTA_CONFIG_DIR: "rel/config" });
  expect(d.data).toBe("/srv/rta/data");
  expect(isAbsolute(d.config)).toBe(true);
  expect(d.config.endsWith("rel/config")).toBe(true);
});

test("without overrides, the platform's places for an app named rta", () => {
  const d = dirs({});
  expect(d.data).toMatch(/rta/);
  expect(d.config).toMatch(/rta/);
  expect(d.data).not.toBe(d.config);
  expect(dirs({ RTA_DATA_DIR: "" }).data).toBe(d.data);
});
