/**
 * kubectl's config, as the audit.kube.* reads run it: the files KUBECONFIG
 * names, else ~/.kube (spawn.ts hands kubectl the operator's HOME and
 * KUBECONFIG). A kubeconfig carries the cluster's credentials and can name a
 * command kubectl runs (an exec credential plugin), so an agent that could
 * write one would have a free read run its command as the operator; the gate
 * guards them as it guards git's config beside the home: not read, and not
 * written, moved or planted.
 */
import { isAbsolute, join, resolve } from "node:path";

/**
 * The places kubectl reads its config from for a process of this environment: each path KUBECONFIG lists (a
 * relative one from the directory rta runs in, where kubectl is started), and ~/.kube (its config and caches)
 * whether KUBECONFIG is set or not. Refuses nothing; none when neither names a place.
 */
export function kubeConfigPlaces(env: Record<string, string | undefined>, cwd = process.cwd()): string[] {
  const listed = (env.KUBECONFIG ?? "")
    .split(":")
    .filter((p) => p !== "")
    .map((p) => resolve(cwd, p));
  const home = env.HOME && isAbsolute(env.HOME) ? [join(env.HOME, ".kube")] : [];
  return [...new Set([...listed, ...home])];
}
