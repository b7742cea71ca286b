// Spawned by record.test.ts: makes (or reads) the record's key in a data dir, as a server starting would; prints it.
import { recordKey } from "../../src/record/key.ts";

const [dir] = process.argv.slice(2) as [string];
process.stdout.write(recordKey(dir).toString("hex"));
