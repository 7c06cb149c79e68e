import { goPathEscape } from "@chaind/core/go-path-escape";
import { describe, expect, it } from "vitest";
import { VisorLayout } from "../../supervisor/src/home/visor-layout.js";

/** Go's url.PathEscape, as cosmovisor names upgrades/<name>; expected values follow Go's shouldEscape table. */
describe("upgrade folder names escaped as Go's url.PathEscape", () => {
  it("keeps : @ + = & $ and unreserved characters, escapes ! * ' ( ) space / and non-ASCII bytes", () => {
    expect(goPathEscape(":@+=&$")).toBe(":@+=&$");
    expect(goPathEscape("AZaz09-_.~")).toBe("AZaz09-_.~");
    expect(goPathEscape("!*'()")).toBe("%21%2A%27%28%29");
    expect(goPathEscape("a b/c")).toBe("a%20b%2Fc");
    expect(goPathEscape(";,?#%")).toBe("%3B%2C%3F%23%25");
    expect(goPathEscape("é")).toBe("%C3%A9");
    expect(goPathEscape("升级")).toBe("%E5%8D%87%E7%BA%A7");
    // encodeURIComponent, used before, differs on exactly these.
    expect(encodeURIComponent(":@+=&$!*'()")).not.toBe(goPathEscape(":@+=&$!*'()"));
  });

  it("names the folder visor uses for a plan, lower-cased unless COSMOVISOR_DISABLE_RECASE", () => {
    const name = "V2: fix@+=&$!*'()/é";
    const recased = new VisorLayout({ home: "/h", name: "app", disableRecase: false });
    expect(recased.planDirName(name)).toBe("v2:%20fix@+=&$%21%2A%27%28%29%2F%C3%A9");
    expect(recased.upgradeDir(name)).toBe("/h/cosmovisor/upgrades/v2:%20fix@+=&$%21%2A%27%28%29%2F%C3%A9");
    const kept = new VisorLayout({ home: "/h", name: "app", disableRecase: true });
    expect(kept.planDirName("V2+Fix")).toBe("V2+Fix");
  });
});
