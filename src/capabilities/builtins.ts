/**
 * The built-in capabilities, one file per thing. The catalogue is built from
 * this list; adding a capability is adding it here.
 */
import type { Capability } from "../core/capability.ts";
import { diskUsage } from "./disk/usage.ts";
import { jwtDecode } from "./jwt/decode.ts";
import { noteAdd } from "./note/add.ts";
import { noteList } from "./note/list.ts";
import { noteRm } from "./note/rm.ts";
import { noteShow } from "./note/show.ts";
import { procKill } from "./proc/kill.ts";
import { procList } from "./proc/list.ts";
import { sysInfo } from "./sys/info.ts";

export const builtins: readonly Capability[] = [
  diskUsage,
  jwtDecode,
  noteAdd,
  noteList,
  noteRm,
  noteShow,
  procKill,
  procList,
  sysInfo,
];
