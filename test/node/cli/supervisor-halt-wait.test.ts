import { describe, expect, it } from "vitest";
import { waitsForSupervisorAfterHalt } from "../../../node/src/cli/supervisor-halt-wait.js";

describe("who chaind waits for after an upgrade halt", () => {
  it("waits under a cosmovisor-style supervisor, exits at once alone or under visor", () => {
    expect(waitsForSupervisorAfterHalt({})).toBe(false);
    expect(waitsForSupervisorAfterHalt({ DAEMON_HOME: "/h" })).toBe(true);
    expect(waitsForSupervisorAfterHalt({ DAEMON_NAME: "chaind" })).toBe(true);
    expect(waitsForSupervisorAfterHalt({ DAEMON_HOME: "/h", DAEMON_NAME: "chaind", VISOR_PID: "42" })).toBe(
      false,
    );
    expect(waitsForSupervisorAfterHalt({ DAEMON_HOME: "" })).toBe(false);
  });
});
