/**
 * Preloaded for every test file (bunfig.toml): at the end of the whole run, the temp dirs the fixtures made are
 * removed. A hook in a preloaded file belongs to the run, not to the first file that happens to load it.
 */
import { afterAll } from "bun:test";
import { removeTempDirs } from "./fixtures.ts";

/** Removing every temp dir of the run (trees of thousands of entries among them) can take longer than a test. */
const REMOVAL_TIMEOUT_MS = 120_000;

afterAll(removeTempDirs, { timeout: REMOVAL_TIMEOUT_MS });
