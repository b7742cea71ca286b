import { closeSync, constants, fsyncSync, openSync } from "node:fs";

/** Makes a rename or a new name in `dir` durable: the directory's own entry list is flushed to disk. Throws as open(2) and fsync(2) do. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
