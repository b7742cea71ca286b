/**
 * Preloaded for every test file (bunfig.toml): at the end of the whole run, the temp dirs the fixtures made are
 * removed, once the PostgreSQL server the run started is stopped. A hook in a preloaded file belongs to the run, not to the first file that happens to load it.
 */
import { afterAll } from "bun:test";
import { removeTempDirs } from "./fixtures.ts";
import { stopPgServer } from "./pg.ts";

/** Removing every temp dir of the run (trees of thousands of entries among them) can take longer than a test. */
const REMOVAL_TIMEOUT_MS = 120_000;

afterAll(
  async () => {
    // the PostgreSQL cluster the run started lives in one of those temp dirs: stopped first
    await stopPgServer();
    removeTempDirs();
  },
  { timeout: REMOVAL_TIMEOUT_MS },
);
