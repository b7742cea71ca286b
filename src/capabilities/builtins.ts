/**
 * The built-in capabilities, one file per capability, named as it is
 * (http.get is http/get.ts). The catalogue is built from this list; adding a
 * capability is adding it here.
 */
import type { Capability } from "../core/capability.ts";
import { auditDeps } from "./audit/deps.ts";
import { auditKubeEol } from "./audit/kube/eol.ts";
import { auditKubeNetpol } from "./audit/kube/netpol.ts";
import { auditKubePodsecurity } from "./audit/kube/podsecurity.ts";
import { auditKubeQuotas } from "./audit/kube/quotas.ts";
import { auditKubeRbac } from "./audit/kube/rbac.ts";
import { auditMail } from "./audit/mail.ts";
import { auditWeb } from "./audit/web.ts";
import { certExpiry } from "./cert/expiry.ts";
import { diskUsage } from "./disk/usage.ts";
import { eolCheck } from "./eol/check.ts";
import { eolProducts } from "./eol/products.ts";
import { eolWatch } from "./eol/watch.ts";
import { fsFind } from "./fs/find.ts";
import { fsGrep } from "./fs/grep.ts";
import { fsHash } from "./fs/hash.ts";
import { fsList } from "./fs/list.ts";
import { fsMkdir } from "./fs/mkdir.ts";
import { fsMove } from "./fs/move.ts";
import { fsRead } from "./fs/read.ts";
import { fsRm } from "./fs/rm.ts";
import { fsStat } from "./fs/stat.ts";
import { fsTree } from "./fs/tree.ts";
import { fsWrite } from "./fs/write.ts";
import { httpGet } from "./http/get.ts";
import { httpHead } from "./http/head.ts";
import { jwtDecode } from "./jwt/decode.ts";
import { keysAddRecipient } from "./keys/addRecipient.ts";
import { keysList } from "./keys/list.ts";
import { keysNew } from "./keys/new.ts";
import { keysRecipients } from "./keys/recipients.ts";
import { keysRemoveRecipient } from "./keys/removeRecipient.ts";
import { kvGet } from "./kv/get.ts";
import { kvList } from "./kv/list.ts";
import { kvOverview } from "./kv/overview.ts";
import { kvRm } from "./kv/rm.ts";
import { kvSet } from "./kv/set.ts";
import { kvStatus } from "./kv/status.ts";
import { logTail } from "./log/tail.ts";
import { netDns } from "./net/dns.ts";
import { netPing } from "./net/ping.ts";
import { netPort } from "./net/port.ts";
import { netProbe } from "./net/probe.ts";
import { netTrace } from "./net/trace.ts";
import { procKill } from "./proc/kill.ts";
import { procList } from "./proc/list.ts";
import { sysInfo } from "./sys/info.ts";

export const builtins: readonly Capability[] = [
  auditDeps,
  auditKubeEol,
  auditKubeNetpol,
  auditKubePodsecurity,
  auditKubeQuotas,
  auditKubeRbac,
  auditMail,
  auditWeb,
  certExpiry,
  diskUsage,
  eolCheck,
  eolProducts,
  eolWatch,
  fsFind,
  fsGrep,
  fsHash,
  fsList,
  fsMkdir,
  fsMove,
  fsRead,
  fsRm,
  fsStat,
  fsTree,
  fsWrite,
  httpGet,
  httpHead,
  jwtDecode,
  keysAddRecipient,
  keysList,
  keysNew,
  keysRecipients,
  keysRemoveRecipient,
  kvGet,
  kvList,
  kvOverview,
  kvRm,
  kvSet,
  kvStatus,
  logTail,
  netDns,
  netPing,
  netPort,
  netProbe,
  netTrace,
  procKill,
  procList,
  sysInfo,
];
