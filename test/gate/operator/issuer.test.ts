import { expect, test } from "bun:test";
import { issuer } from "../../../src/gate/operator/issuer.ts";
import { hostAt, tree } from "../../support/fixtures.ts";

const user = (name: string, uid: number | undefined) => ({ name: () => name, uid: () => uid });

test("the issuer is the system's name for the user when it has one", () => {
  expect(issuer(hostAt(tree({})), user("ops", 1000))).toBe("ops");
});

test("a uid the system cannot name is looked up in the host's user database, not the machine's", () => {
  const host = hostAt(
    tree({ "etc/passwd": "root:x:0:0::/root:/bin/sh\nsomeone:x:4242:4242::/home/someone:/bin/sh\n" }),
  );
  expect(issuer(host, user("", 4242))).toBe("someone");
  expect(issuer(host, user("unknown", 4243))).toBe("uid 4243");
});

test("with no user database the uid says who, and with no uid it is unknown", () => {
  expect(issuer(hostAt(tree({})), user("", 4242))).toBe("uid 4242");
  expect(issuer(hostAt(tree({})), user("", undefined))).toBe("unknown");
});
