/**
 * Go's named time layouts, the ones COSMOVISOR_TIMEFORMAT_LOGS names, rendered as Go's `time.Format` renders
 * them, so visor's log lines carry the same timestamps as cosmovisor's.
 */

/** The option names cosmovisor accepts, with Go's layout constant for each (cosmovisor's own table). */
export const GO_TIME_LAYOUTS = {
  layout: "01/02 03:04:05PM '06 -0700",
  ansic: "Mon Jan _2 15:04:05 2006",
  unixdate: "Mon Jan _2 15:04:05 MST 2006",
  rubydate: "Mon Jan 02 15:04:05 -0700 2006",
  rfc822: "02 Jan 06 15:04 MST",
  rfc822z: "02 Jan 06 15:04 -0700",
  rfc850: "Monday, 02-Jan-06 15:04:05 MST",
  rfc1123: "Mon, 02 Jan 2006 15:04:05 MST",
  rfc1123z: "Mon, 02 Jan 2006 15:04:05 -0700",
  rfc3339: "2006-01-02T15:04:05Z07:00",
  rfc3339nano: "2006-01-02T15:04:05.999999999Z07:00",
  kitchen: "3:04PM",
} as const;

export type GoTimeLayoutName = keyof typeof GO_TIME_LAYOUTS;

/** A zone as Go's `time.Location` gives it for an instant: the offset east of UTC and its abbreviation. */
export interface GoZone {
  offsetMinutes: number;
  /** What `MST` prints: "UTC", "EST", or, where the zone has no letters, Go's numeric form ("+0530"). */
  abbreviation: string;
}

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** Go's numeric abbreviation for an offset without letters: "+03", "-0930". */
function numericAbbreviation(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  return abs % 60 === 0 ? `${sign}${hh}` : `${sign}${hh}${String(abs % 60).padStart(2, "0")}`;
}

/**
 * The machine's local zone at `d`. Letters come from ICU (en-US names US zones and UTC); where it has none
 * ("GMT+2"), Go's numeric form stands in, which is what Go prints for zones whose tzdata has no letters.
 */
export function localZone(d: Date): GoZone {
  const offsetMinutes = -d.getTimezoneOffset();
  const name =
    new Intl.DateTimeFormat("en-US", { timeZoneName: "short" })
      .formatToParts(d)
      .find((p) => p.type === "timeZoneName")?.value ?? "";
  const letters = /^[A-Z]{2,5}$/.test(name) ? name : null;
  return {
    offsetMinutes,
    abbreviation: letters ?? (offsetMinutes === 0 ? "UTC" : numericAbbreviation(offsetMinutes)),
  };
}

/** `-0700` or, with a colon, `-07:00`; `Z` for UTC where the layout says `Z07:00`. */
function offsetText(offsetMinutes: number, colon: boolean, zForUtc: boolean): string {
  if (zForUtc && offsetMinutes === 0) return "Z";
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${sign}${hh}${colon ? ":" : ""}${mm}`;
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** The chunks of Go's reference time these layouts use, longest first where one is a prefix of another. */
const CHUNKS = [
  "Monday",
  "Mon",
  "January",
  "Jan",
  "MST",
  "2006",
  "Z07:00",
  "-0700",
  ".999999999",
  "01",
  "02",
  "03",
  "04",
  "05",
  "06",
  "15",
  "_2",
  "PM",
  "3",
] as const;

/**
 * `d` in the layout, as wall-clock time in `zone`. Handles the chunks of the layouts above (every one
 * cosmovisor names); any other character is copied, as Go copies text it does not recognise.
 */
export function formatGoTime(d: Date, layout: string, zone: GoZone): string {
  // The wall clock in the zone: shift the instant, then read it in UTC.
  const w = new Date(d.getTime() + zone.offsetMinutes * 60_000);
  const hour = w.getUTCHours();
  const nanos = w.getUTCMilliseconds() * 1_000_000;
  const render: Record<(typeof CHUNKS)[number], () => string> = {
    Monday: () => DAYS[w.getUTCDay()],
    Mon: () => DAYS[w.getUTCDay()].slice(0, 3),
    January: () => MONTHS[w.getUTCMonth()],
    Jan: () => MONTHS[w.getUTCMonth()].slice(0, 3),
    MST: () => zone.abbreviation,
    "2006": () => String(w.getUTCFullYear()).padStart(4, "0"),
    "Z07:00": () => offsetText(zone.offsetMinutes, true, true),
    "-0700": () => offsetText(zone.offsetMinutes, false, false),
    // Go's .999999999: the fraction without trailing zeros, and nothing at all for a whole second.
    ".999999999": () => (nanos === 0 ? "" : `.${String(nanos).padStart(9, "0").replace(/0+$/, "")}`),
    "01": () => pad2(w.getUTCMonth() + 1),
    "02": () => pad2(w.getUTCDate()),
    "03": () => pad2(hour % 12 === 0 ? 12 : hour % 12),
    "04": () => pad2(w.getUTCMinutes()),
    "05": () => pad2(w.getUTCSeconds()),
    "06": () => pad2(w.getUTCFullYear() % 100),
    "15": () => pad2(hour),
    _2: () => String(w.getUTCDate()).padStart(2, " "),
    PM: () => (hour < 12 ? "AM" : "PM"),
    "3": () => String(hour % 12 === 0 ? 12 : hour % 12),
  };
  let out = "";
  let i = 0;
  while (i < layout.length) {
    const chunk = CHUNKS.find((c) => layout.startsWith(c, i));
    if (chunk) {
      out += render[chunk]();
      i += chunk.length;
    } else out += layout[i++];
  }
  return out;
}

/** A clock for log lines in the named layout, in the machine's zone. */
export function goTimeFormatter(name: GoTimeLayoutName): (d: Date) => string {
  const layout = GO_TIME_LAYOUTS[name];
  return (d) => formatGoTime(d, layout, localZone(d));
}
