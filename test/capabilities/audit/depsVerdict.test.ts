/**
 * What audit.deps makes of an OSV record: CVSS v3 scores computed from the
 * vector, the version order that picks the range holding a version, the fix
 * for that range, and the database's word where no CVSS v3 is given.
 */
import { describe, expect, test } from "bun:test";
import { cvss3Score, rating } from "../../../src/capabilities/audit/cvss.ts";
import type { OsvVuln } from "../../../src/capabilities/audit/depsOsv.ts";
import { fixedFor, severityOf } from "../../../src/capabilities/audit/depsVerdict.ts";
import type { Dep } from "../../../src/capabilities/audit/lockfiles/types.ts";
import { compareVersions } from "../../../src/capabilities/audit/versionOrder.ts";

describe("CVSS v3 base scores", () => {
  // the scores NVD gives these vectors
  const known: [string, number][] = [
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8],
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", 10],
    ["CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H", 7.2],
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H", 8.8],
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L", 5.3],
    ["CVSS:3.0/AV:N/AC:L/PR:L/UI:R/S:C/C:L/I:L/A:N", 5.4],
    ["CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:N/I:N/A:N", 0],
  ];
  for (const [vector, score] of known) test(vector, () => expect(cvss3Score(vector)).toBe(score));
  test("a v2 or v4 vector, or one missing a metric, has no v3 score", () => {
    expect(cvss3Score("AV:N/AC:L/Au:N/C:P/I:P/A:P")).toBeUndefined();
    expect(cvss3Score("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N")).toBeUndefined();
    expect(cvss3Score("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H")).toBeUndefined();
  });
  test("ratings", () => expect([0, 3.9, 4, 8.9, 9].map(rating)).toEqual(["none", "low", "medium", "high", "critical"]));
});

describe("version order", () => {
  test.each([
    ["1.2.5", "1.2.6", -1],
    ["1.10.0", "1.9.0", 1],
    ["1.0.0-rc.1", "1.0.0", -1],
    ["2.0b1", "2.0", -1],
    ["2.0-beta9", "2.0", -1],
    ["2.14.1", "2.14.1.Final", 0],
    ["v0.3.5", "0.3.7", -1],
    ["1.0", "1.0.1", -1],
  ])("%s against %s", (a, b, sign) => expect(Math.sign(compareVersions(a, b))).toBe(sign));
});

const minimist: OsvVuln = {
  id: "GHSA-xvch-5gv4-984h",
  affected: [
    {
      package: { ecosystem: "npm", name: "minimist" },
      ranges: [
        {
          type: "SEMVER",
          events: [{ introduced: "0" }, { fixed: "0.2.4" }, { introduced: "1.0.0" }, { fixed: "1.2.6" }],
        },
      ],
    },
  ],
  severity: [{ type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" }],
};
const npm = (name: string, version: string): Dep => ({ name, version, ecosystem: "npm" });

describe("the fix for the range that holds the version", () => {
  test("each of two ranges gives its own fix", () => {
    expect(fixedFor(minimist, npm("minimist", "0.1.0"))).toBe("0.2.4");
    expect(fixedFor(minimist, npm("minimist", "1.2.5"))).toBe("1.2.6");
  });
  test("last_affected has no fix; another package's ranges are not read", () => {
    const v: OsvVuln = {
      id: "X",
      affected: [
        {
          package: { ecosystem: "npm", name: "other" },
          ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "9.0.0" }] }],
        },
        {
          package: { ecosystem: "npm", name: "a" },
          ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { last_affected: "1.0.0" }] }],
        },
      ],
    };
    expect(fixedFor(v, npm("a", "1.0.0"))).toBeNull();
  });
  test("listed in versions but in no range read here: the first fix after it", () => {
    const v: OsvVuln = {
      id: "Y",
      affected: [
        {
          package: { ecosystem: "PyPI", name: "Py_YAML" },
          versions: ["5.3"],
          ranges: [
            { type: "GIT", events: [{ introduced: "0" }, { fixed: "abc" }] },
            {
              type: "ECOSYSTEM",
              events: [{ introduced: "6.0" }, { fixed: "6.1" }, { introduced: "0" }, { fixed: "5.4" }],
            },
          ],
        },
      ],
    };
    expect(fixedFor(v, { name: "py-yaml", version: "5.3", ecosystem: "PyPI" })).toBe("5.4");
  });
});

describe("severity", () => {
  test("a v3 vector is scored", () =>
    expect(severityOf(minimist, npm("minimist", "1.2.5"))).toEqual({
      severity: "critical",
      score: 9.8,
      vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
    }));
  test("no v3: the v4 vector is given and the database's word, moderate said medium", () => {
    const v: OsvVuln = {
      id: "Z",
      severity: [{ type: "CVSS_V4", score: "CVSS:4.0/AV:N" }],
      database_specific: { severity: "MODERATE" },
    };
    expect(severityOf(v, npm("a", "1"))).toEqual({ severity: "medium", score: null, vector: "CVSS:4.0/AV:N" });
  });
  test("none given: null", () => expect(severityOf({ id: "GO-1" }, npm("a", "1")).severity).toBeNull());
});
