/**
 * Each lockfile parser over its fixture (one known-vulnerable and one clean
 * package each) and over the forms of its format the fixture does not show.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parserFor } from "../../../src/capabilities/audit/lockfiles/index.ts";
import { parsePom } from "../../../src/capabilities/audit/lockfiles/maven.ts";
import {
  parseBunLock,
  parsePackageLock,
  parsePnpmLock,
  pnpmKey,
} from "../../../src/capabilities/audit/lockfiles/npm.ts";
import { parseGemfileLock, parseGoSum } from "../../../src/capabilities/audit/lockfiles/others.ts";
import {
  parsePythonTomlLock,
  parseRequirements,
  requirementPin,
} from "../../../src/capabilities/audit/lockfiles/python.ts";
import { parseXml } from "../../../src/capabilities/audit/lockfiles/xml.ts";
import { parseYarnLock, yarnTokens } from "../../../src/capabilities/audit/lockfiles/yarn.ts";

const TREE = join(import.meta.dir, "../../fixtures/deps/tree");

function parsed(rel: string): string[] {
  const name = rel.split("/").pop() as string;
  const parse = parserFor(name);
  if (!parse) throw new Error(`no parser for ${name}`);
  return parse(readFileSync(join(TREE, rel), "utf8")).map((d) => `${d.ecosystem} ${d.name} ${d.version}`);
}

describe("each fixture, parsed", () => {
  const expected: Record<string, string[]> = {
    "npm/package-lock.json": ["npm lodash 4.17.20", "npm is-number 7.0.0", "npm local 0.0.1"],
    "pnpm/pnpm-lock.yaml": ["npm minimist 1.2.5", "npm ms 2.1.3"],
    "yarn1/yarn.lock": ["npm @types/node 20.11.5", "npm node-fetch 2.6.0", "npm undici-types 5.26.5"],
    "berry/yarn.lock": ["npm axios 0.21.1", "npm chalk 5.3.0"],
    "bun/bun.lock": ["npm picocolors 1.1.1", "npm semver 7.5.1"],
    "py-req/requirements.txt": ["PyPI requests 2.19.0", "PyPI six 1.16.0"],
    "py-req/requirements-dev.txt": ["PyPI pytest 8.3.3"],
    "poetry/poetry.lock": ["PyPI urllib3 1.26.4", "PyPI idna 3.10"],
    "uv/uv.lock": ["PyPI jinja2 2.11.2", "PyPI markupsafe 3.0.2"],
    "pipenv/Pipfile.lock": ["PyPI pyyaml 5.3", "PyPI attrs 24.2.0"],
    "go/go.sum": ["Go github.com/google/uuid 1.6.0", "Go golang.org/x/text 0.3.5"],
    "rust/Cargo.lock": ["crates.io cfg-if 1.0.0", "crates.io smallvec 1.6.0"],
    "ruby/Gemfile.lock": ["RubyGems nokogiri 1.13.3", "RubyGems racc 1.8.1", "RubyGems rake 13.2.1"],
    "php/composer.lock": ["Packagist guzzlehttp/guzzle 7.4.4", "Packagist psr/log 3.0.2"],
    "maven/pom.xml": ["Maven org.apache.logging.log4j:log4j-core 2.14.1", "Maven junit:junit 4.13.2"],
  };
  for (const [rel, want] of Object.entries(expected)) test(rel, () => expect(parsed(rel)).toEqual(want));
});

describe("npm", () => {
  test("package-lock v1's nested dependencies", () => {
    const v1 = JSON.stringify({
      lockfileVersion: 1,
      dependencies: {
        a: { version: "1.0.0", dependencies: { b: { version: "2.0.0" } } },
        c: { version: "file:../c" },
        old: { version: "npm:@s/new@3.0.0" },
      },
    });
    expect(parsePackageLock(v1).map((d) => `${d.name}@${d.version}`)).toEqual(["a@1.0.0", "b@2.0.0", "@s/new@3.0.0"]);
  });
  test("a nested node_modules path names the innermost package", () => {
    const v3 = JSON.stringify({ packages: { "node_modules/a/node_modules/@s/b": { version: "1.2.3" } } });
    expect(parsePackageLock(v3)).toEqual([{ name: "@s/b", version: "1.2.3", ecosystem: "npm" }]);
  });
  test("pnpm keys of v5, v6 and v9", () => {
    expect(pnpmKey("/a/1.0.0")).toEqual({ name: "a", version: "1.0.0" });
    expect(pnpmKey("/a/1.0.0_react@18.2.0")).toEqual({ name: "a", version: "1.0.0" });
    expect(pnpmKey("/@s/b@2.0.0(react@18.2.0)")).toEqual({ name: "@s/b", version: "2.0.0" });
    expect(pnpmKey("@s/b@2.0.0")).toEqual({ name: "@s/b", version: "2.0.0" });
    expect(pnpmKey("link:../x")).toBeUndefined();
  });
  test("pnpm v6 with quoted keys", () => {
    const text = "lockfileVersion: '6.0'\npackages:\n  /@babel/core@7.22.5:\n    resolution: {integrity: x}\n";
    expect(parsePnpmLock(text)).toEqual([{ name: "@babel/core", version: "7.22.5", ecosystem: "npm" }]);
  });
  test("a lockfile that is not YAML is refused, not half read", () => {
    expect(() => parsePnpmLock("packages:\n  a: [unclosed\n")).toThrow();
  });
  test("bun.lock's trailing commas, and a workspace package left out", () => {
    const text = '{ "packages": { "w": ["w@workspace:packages/w", {},], "a": ["a@1.0.0", "", {}, "sha"], }, }';
    expect(parseBunLock(text)).toEqual([{ name: "a", version: "1.0.0", ecosystem: "npm" }]);
  });
});

describe("yarn", () => {
  test("v1 tokens: quoted keys with commas, the colon that opens a block", () => {
    expect(yarnTokens('"@a/b@^1", "@a/b@~1.2":')).toEqual({ indent: 0, words: ["@a/b@^1", "@a/b@~1.2"], opens: true });
    expect(yarnTokens('  version "1.2.3"')).toEqual({ indent: 2, words: ["version", "1.2.3"], opens: false });
    expect(yarnTokens("  resolved https://x/y.tgz#abc")).toEqual({
      indent: 2,
      words: ["resolved", "https://x/y.tgz#abc"],
      opens: false,
    });
  });
  test("v1: an alias pins the package it names after npm:", () => {
    const text = '"old@npm:lodash@^4", lodash@^4:\n  version "4.17.20"\n"b@npm:@s/real@^1":\n  version "1.0.0"\n';
    expect(parseYarnLock(text).map((d) => `${d.name}@${d.version}`)).toEqual(["lodash@4.17.20", "@s/real@1.0.0"]);
  });
  test("a dependency's own `version` line at four spaces is not a pin", () => {
    const text = 'a@^1:\n  version "1.0.0"\n  dependencies:\n    version "9.9.9"\n';
    expect(parseYarnLock(text).map((d) => d.version)).toEqual(["1.0.0"]);
  });
  test("berry: patches and workspaces are not releases", () => {
    const text =
      '__metadata:\n  version: 6\n\n"r@patch:r@npm%3A1.0.0#x::version=1.0.0":\n  version: 1.0.0\n  resolution: "r@patch:r@npm%3A1.0.0#x::version=1.0.0"\n\n"w@workspace:.":\n  version: 0.0.0-use.local\n  resolution: "w@workspace:."\n';
    expect(parseYarnLock(text)).toEqual([]);
  });
});

describe("python", () => {
  test("requirement lines: extras, markers, ranges, options, comments", () => {
    expect(requirementPin("Django[argon2]==4.2.1 ; python_version >= '3.8'")).toEqual({
      name: "Django",
      version: "4.2.1",
    });
    expect(requirementPin("a===1.0")).toEqual({ name: "a", version: "1.0" });
    expect(requirementPin("a>=1.0")).toBeUndefined();
    expect(requirementPin("a==1.*")).toBeUndefined();
    expect(requirementPin("a==1.0,!=1.0.1")).toBeUndefined();
    expect(requirementPin("--index-url https://x")).toBeUndefined();
    expect(requirementPin("# a==1.0")).toBeUndefined();
    expect(requirementPin("git+https://x/y.git#egg=y")).toBeUndefined();
  });
  test("poetry: a git or path source is not a PyPI release", () => {
    const text =
      '[[package]]\nname = "a"\nversion = "1.0"\n[package.source]\ntype = "git"\nurl = "https://x/a.git"\n\n[[package]]\nname = "b"\nversion = "2.0"\n';
    expect(parsePythonTomlLock(text).map((d) => d.name)).toEqual(["b"]);
  });
  test("names are normalised as osv.dev files them", () => {
    expect(parseRequirements("Foo_Bar.baz==1.0\n").map((d) => d.name)).toEqual(["foo-bar-baz"]);
  });
});

describe("go, ruby", () => {
  test("go.sum: +incompatible and pseudo-versions", () => {
    const text = "github.com/a/b v2.0.0+incompatible h1:x=\nexample.com/c v0.0.0-20210101000000-abcdef123456 h1:y=\n";
    expect(parseGoSum(text).map((d) => d.version)).toEqual(["2.0.0", "0.0.0-20210101000000-abcdef123456"]);
  });
  test("Gemfile.lock: a GIT section's specs are not from the gem server", () => {
    const text = "GIT\n  remote: https://x/y.git\n  specs:\n    y (1.0.0)\n\nGEM\n  specs:\n    z (2.0.0)\n";
    expect(parseGemfileLock(text).map((d) => d.name)).toEqual(["z"]);
  });
});

describe("maven's XML", () => {
  test("comments, CDATA, entities and attributes with `>` in quotes", () => {
    const root = parseXml(
      '<?xml version="1.0"?><!-- <x> --><p a="1>2"><q>&lt;a&amp;b&#33;</q><r><![CDATA[<s>]]></r></p>',
    );
    expect(root.name).toBe("p");
    expect(root.children.map((c) => [c.name, c.text])).toEqual([
      ["q", "<a&b!"],
      ["r", "<s>"],
    ]);
  });
  test("a tag left open, or closed twice, is refused", () => {
    expect(() => parseXml("<a><b></a>")).toThrow();
    expect(() => parseXml("<a></a></a>")).toThrow();
  });
  test("a range, an unknown property, and dependencyManagement", () => {
    const pom = `<project><dependencyManagement><dependencies>
      <dependency><groupId>g</groupId><artifactId>m</artifactId><version>1.0</version></dependency>
    </dependencies></dependencyManagement><dependencies>
      <dependency><groupId>g</groupId><artifactId>r</artifactId><version>[1.0,2.0)</version></dependency>
      <dependency><groupId>g</groupId><artifactId>u</artifactId><version>\${nowhere}</version></dependency>
      <dependency><groupId>\${project.groupId}</groupId><artifactId>s</artifactId><version>\${project.version}</version></dependency>
    </dependencies><groupId>me</groupId><version>3.0</version></project>`;
    expect(parsePom(pom).map((d) => `${d.name}@${d.version}`)).toEqual(["me:s@3.0", "g:m@1.0"]);
  });
  test("a document whose root is not <project> is refused", () => {
    expect(() => parsePom("<settings/>")).toThrow("not <project>");
  });
});
