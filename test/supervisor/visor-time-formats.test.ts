import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { formatGoTime, GO_TIME_LAYOUTS, localZone } from "../../supervisor/src/config/go-time-layout.js";
import { VISOR } from "./visor-home.js";

/**
 * Expected strings are what Go's time.Format prints (go1.22) for these instants:
 *   ref := time.Date(2006, 1, 2, 15, 4, 5, 0, time.FixedZone("MST", -7*3600))  // Go's reference time
 *   t := time.Date(2024, 3, 5, 0, 7, 9, 120_000_000, time.UTC)
 *   ist := time.Date(2024, 11, 23, 18, 30, 0, 5_000_000, time.FixedZone("IST", 5*3600+30*60))
 */
const REF = new Date(Date.UTC(2006, 0, 2, 22, 4, 5));
const MST = { offsetMinutes: -7 * 60, abbreviation: "MST" };
const T = new Date(Date.UTC(2024, 2, 5, 0, 7, 9, 120));
const UTC = { offsetMinutes: 0, abbreviation: "UTC" };
const IST_T = new Date(Date.UTC(2024, 10, 23, 13, 0, 0, 5));
const IST = { offsetMinutes: 330, abbreviation: "IST" };

const GO_OUTPUT: Record<keyof typeof GO_TIME_LAYOUTS, [string, string, string]> = {
  layout: ["01/02 03:04:05PM '06 -0700", "03/05 12:07:09AM '24 +0000", "11/23 06:30:00PM '24 +0530"],
  ansic: ["Mon Jan  2 15:04:05 2006", "Tue Mar  5 00:07:09 2024", "Sat Nov 23 18:30:00 2024"],
  unixdate: ["Mon Jan  2 15:04:05 MST 2006", "Tue Mar  5 00:07:09 UTC 2024", "Sat Nov 23 18:30:00 IST 2024"],
  rubydate: [
    "Mon Jan 02 15:04:05 -0700 2006",
    "Tue Mar 05 00:07:09 +0000 2024",
    "Sat Nov 23 18:30:00 +0530 2024",
  ],
  rfc822: ["02 Jan 06 15:04 MST", "05 Mar 24 00:07 UTC", "23 Nov 24 18:30 IST"],
  rfc822z: ["02 Jan 06 15:04 -0700", "05 Mar 24 00:07 +0000", "23 Nov 24 18:30 +0530"],
  rfc850: [
    "Monday, 02-Jan-06 15:04:05 MST",
    "Tuesday, 05-Mar-24 00:07:09 UTC",
    "Saturday, 23-Nov-24 18:30:00 IST",
  ],
  rfc1123: [
    "Mon, 02 Jan 2006 15:04:05 MST",
    "Tue, 05 Mar 2024 00:07:09 UTC",
    "Sat, 23 Nov 2024 18:30:00 IST",
  ],
  rfc1123z: [
    "Mon, 02 Jan 2006 15:04:05 -0700",
    "Tue, 05 Mar 2024 00:07:09 +0000",
    "Sat, 23 Nov 2024 18:30:00 +0530",
  ],
  rfc3339: ["2006-01-02T15:04:05-07:00", "2024-03-05T00:07:09Z", "2024-11-23T18:30:00+05:30"],
  rfc3339nano: ["2006-01-02T15:04:05-07:00", "2024-03-05T00:07:09.12Z", "2024-11-23T18:30:00.005+05:30"],
  kitchen: ["3:04PM", "12:07AM", "6:30PM"],
};

describe("COSMOVISOR_TIMEFORMAT_LOGS: Go's layouts rendered as Go renders them", () => {
  for (const [name, [ref, t, ist]] of Object.entries(GO_OUTPUT)) {
    it(name, () => {
      const layout = GO_TIME_LAYOUTS[name as keyof typeof GO_TIME_LAYOUTS];
      expect(formatGoTime(REF, layout, MST)).toBe(ref);
      expect(formatGoTime(T, layout, UTC)).toBe(t);
      expect(formatGoTime(IST_T, layout, IST)).toBe(ist);
    });
  }

  it("names every layout cosmovisor accepts, and no other", () => {
    expect(Object.keys(GO_TIME_LAYOUTS)).toEqual(Object.keys(GO_OUTPUT));
  });

  it("takes the machine's zone: its letters where ICU has them, else Go's numeric form", () => {
    const d = new Date(Date.UTC(2024, 0, 15, 12));
    // This process's zone is whatever the machine has; only its offset is certain.
    expect(localZone(d).offsetMinutes).toBe(-d.getTimezoneOffset());
  });

  it("visor's log lines carry the time in the layout the setting names, in the machine's zone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "visor-time-"));
    try {
      // An unknown key makes `visor config` log one warning line, whose clock is under test.
      const file = join(dir, "config.toml");
      writeFileSync(file, `daemon_home = '${dir}'\ndaemon_name = 'x'\nbogus = 1\n`);
      const line = async (tz: string, layout: string) => {
        const r = await execa("node", [VISOR, "config", "-c", file], {
          env: {
            PATH: process.env.PATH,
            TZ: tz,
            COSMOVISOR_TIMEFORMAT_LOGS: layout,
            COSMOVISOR_COLOR_LOGS: "false",
          },
          extendEnv: false,
          reject: false,
        });
        expect(r.exitCode, r.stderr).toBe(0);
        return r.stderr.trim();
      };
      const day = "(Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
      const month = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
      expect(await line("UTC", "rfc1123")).toMatch(
        new RegExp(`^${day}, \\d{2} ${month} \\d{4} \\d{2}:\\d{2}:\\d{2} UTC WRN .*unknown key "bogus"`),
      );
      expect(await line("America/New_York", "unixdate")).toMatch(
        new RegExp(`^${day} ${month} [ \\d]\\d \\d{2}:\\d{2}:\\d{2} E[SD]T \\d{4} WRN `),
      );
      expect(await line("Asia/Kolkata", "rfc3339")).toMatch(
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30 WRN /,
      );
      expect(await line("UTC", "kitchen")).toMatch(/^(1[0-2]|[1-9]):[0-5]\d[AP]M WRN /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
