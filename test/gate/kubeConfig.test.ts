import { describe, expect, test } from "bun:test";
import { kubeConfigPlaces } from "../../src/gate/paths/kubeConfig.ts";

describe("kubeConfigPlaces", () => {
  test("each file KUBECONFIG lists, a relative one from where rta runs, and ~/.kube", () => {
    expect(kubeConfigPlaces({ HOME: "/home/op", KUBECONFIG: "/etc/kube/a.yaml::conf/b.yaml" }, "/srv/run")).toEqual([
      "/etc/kube/a.yaml",
      "/srv/run/conf/b.yaml",
      "/home/op/.kube",
    ]);
  });

  test("~/.kube alone without KUBECONFIG; nothing from a home that is not absolute", () => {
    expect(kubeConfigPlaces({ HOME: "/home/op" })).toEqual(["/home/op/.kube"]);
    expect(kubeConfigPlaces({ HOME: "relative" })).toEqual([]);
    expect(kubeConfigPlaces({})).toEqual([]);
  });
});
