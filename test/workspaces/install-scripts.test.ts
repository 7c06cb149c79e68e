import { execa } from "execa";
import { describe, expect, it } from "vitest";

/**
 * `npm ci` runs no dependency's install script unless package.json's allowScripts approves it, and warns in a
 * block about every one it has no word on. Each is reviewed there (none is needed: the native modules load
 * their prebuilt or pure-JS forms, @scarf/scarf only reports installs), so a clean install prints no warning.
 */
describe("dependency install scripts", () => {
  it("every dependency with an install script is reviewed in package.json's allowScripts", async () => {
    const r = await execa("npm", ["install-scripts", "ls"], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("No packages with unreviewed install scripts.");
  }, 60_000);
});
