import { describe, expect, it } from "vitest";
import { parseRequestTarget } from "../../../node/src/server/rest/request-target.js";

/** What WHATWG URL parsing makes of an origin-form target: the reading the fast split must agree with. */
function viaUrl(target: string) {
  const url = new URL(`http://gateway${target}`);
  return { pathname: url.pathname, query: [...url.searchParams] };
}

describe("parseRequestTarget", () => {
  it("reads every target as URL parsing does, split directly or not", () => {
    const targets = [
      "/",
      "/cosmos/upgrade/v1beta1/current_plan",
      "/cosmos/bank/v1beta1/balances/sdk1xd0lstaxhgt5fmnpp0u3veh24zacy0yhusrpgq",
      "/sdk/bank/v1beta1/balances/addr?pagination.limit=2&pagination.reverse=true",
      "/sdk/bank/v1beta1/supply/by_denom?denom=ibc%2FABC&denom=u.atom+x",
      "/sdk/x?a=1&a=2&b=%zz&=c&d",
      "//x/y",
      "/a/../b/./c",
      "/a/%2e%2e/b/%2E/c",
      "/a/.%2e/b?x=%2e",
      "/a b/c",
      "/sdk/x/caf%C3%A9?q=caf%C3%A9&r=é",
      "/x#frag",
      "/x?y=1#frag",
      "/x\\y",
      "/x?",
    ];
    for (const target of targets) {
      const got = parseRequestTarget(target);
      expect(got, target).not.toBeNull();
      expect({ pathname: got!.pathname, query: [...got!.query] }, target).toEqual(viaUrl(target));
    }
  });

  it("takes absolute-form targets as URLs and refuses what is no URL", () => {
    expect(parseRequestTarget("http://h:1/a/b?c=d")?.pathname).toBe("/a/b");
    expect(parseRequestTarget("http://[")).toBeNull();
  });
});
