/**
 * Which files audit.deps reads, and the parser for each, by the file's name.
 */

import { parsePom } from "./maven.ts";
import { parseBunLock, parsePackageLock, parsePnpmLock } from "./npm.ts";
import { parseCargoLock, parseComposerLock, parseGemfileLock, parseGoSum } from "./others.ts";
import { parsePipfileLock, parsePythonTomlLock, parseRequirements } from "./python.ts";
import type { Parser } from "./types.ts";
import { parseYarnLock } from "./yarn.ts";

const BY_NAME: Record<string, Parser> = {
  "package-lock.json": parsePackageLock,
  "npm-shrinkwrap.json": parsePackageLock,
  "pnpm-lock.yaml": parsePnpmLock,
  "yarn.lock": parseYarnLock,
  "bun.lock": parseBunLock,
  "poetry.lock": parsePythonTomlLock,
  "uv.lock": parsePythonTomlLock,
  "Pipfile.lock": parsePipfileLock,
  "go.sum": parseGoSum,
  "Cargo.lock": parseCargoLock,
  "Gemfile.lock": parseGemfileLock,
  "gems.locked": parseGemfileLock,
  "composer.lock": parseComposerLock,
  "pom.xml": parsePom,
};

/** The parser for a file of this name (requirements*.txt among them), or undefined for one rta does not read. */
export function parserFor(name: string): Parser | undefined {
  const known = BY_NAME[name];
  if (known) return known;
  if (name.startsWith("requirements") && name.endsWith(".txt")) return parseRequirements;
  return undefined;
}
