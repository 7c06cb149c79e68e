import {
  ConfigError,
  defineTable,
  formatProblem,
  parseTable,
  renderToml,
  type SettingLookup,
  section,
  setting,
  tableDefaults,
  tableRows,
  tomlLookup,
  withGeneratedRegions,
} from "@chaind/core/config-table";
import fc from "fast-check";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import {
  tomlBool,
  tomlChoice,
  tomlGoDuration,
  tomlString,
  tomlWholeNumber,
} from "../../../node/src/config/toml-setting-types.js";

/** A small table with every TOML type, a section, a check on one setting and one across settings. */
const SAMPLE = defineTable({
  name: "sample.toml",
  title: "Base",
  entries: {
    label: setting({ name: "label", type: tomlString, default: "x", doc: "A label." }),
    mode: setting({ name: "mode", type: tomlChoice(["a", "b"]), default: "a", doc: "The mode." }),
    count: setting({
      name: "count",
      type: tomlWholeNumber({ min: 0, quoted: true }),
      default: 3,
      unit: "items",
      doc: "How many.",
    }),
    net: section("net", "Network", {
      on: setting({ name: "on", type: tomlBool, default: true, doc: "Serve." }),
      wait: setting({ name: "wait", type: tomlGoDuration, default: 1500, doc: "How long." }),
      even: setting({
        name: "even",
        type: tomlWholeNumber({ min: 1 }),
        default: 2,
        check: (v) => (v % 2 === 0 ? null : "an even whole number"),
        doc: "An even number.",
      }),
    }),
  },
  check: (c) =>
    c.mode === "b" && c.count < 5 ? [{ key: "count", expected: "≥ 5 with mode b", got: c.count }] : [],
});

const lookupIn = (toml: string): SettingLookup => tomlLookup(parse(toml), "s.toml");

describe("config table engine", () => {
  it("lists every setting in table order with its section + name key", () => {
    expect(tableRows(SAMPLE).map((r) => r.key)).toEqual([
      "label",
      "mode",
      "count",
      "net.on",
      "net.wait",
      "net.even",
    ]);
  });

  it("gives the defaults as a fresh nested object each time", () => {
    const a = tableDefaults(SAMPLE);
    expect(a).toEqual({ label: "x", mode: "a", count: 3, net: { on: true, wait: 1500, even: 2 } });
    a.net.on = false;
    expect(tableDefaults(SAMPLE).net.on).toBe(true);
  });

  it("reads every value, defaults for absent keys, and ignores keys it does not know", () => {
    const r = parseTable(SAMPLE, lookupIn('count = "7"\nextra = 1\n[net]\nwait = "2s"\nmore = true\n'));
    expect(r.problems).toEqual([]);
    expect(r.config).toEqual({ label: "x", mode: "a", count: 7, net: { on: true, wait: 2000, even: 2 } });
  });

  it("reports every bad value together, each with source, key and expected form", () => {
    const r = parseTable(
      SAMPLE,
      lookupIn('label = 5\nmode = "c"\ncount = "abc"\n[net]\non = "yes"\nwait = "soon"\neven = 3\n'),
    );
    expect(r.config).toBeNull();
    expect(r.problems.map(formatProblem)).toEqual([
      "s.toml: label: expected a string, got 5",
      's.toml: mode: expected one of a, b, got "c"',
      's.toml: count: expected a whole number ≥ 0, got "abc"',
      's.toml: net.on: expected true or false, got "yes"',
      's.toml: net.wait: expected a Go duration such as 300ms, 5s or 1m30s, got "soon"',
      "s.toml: net.even: expected an even whole number, got 3",
    ]);
  });

  it("runs checks across settings beside the others, and names the raw value", () => {
    expect(parseTable(SAMPLE, lookupIn('mode = "b"\ncount = "4"\n')).problems.map(formatProblem)).toEqual([
      's.toml: count: expected ≥ 5 with mode b, got "4"',
    ]);
    // A bad value elsewhere hides nothing: count's default (3, set nowhere) is too small for mode b too.
    expect(parseTable(SAMPLE, lookupIn('mode = "b"\n[net]\non = 1\n')).problems.map(formatProblem)).toEqual([
      "s.toml: net.on: expected true or false, got 1",
      "count: expected ≥ 5 with mode b, got 3",
    ]);
    // A refused setting is judged once, by its own form, not again by a check across settings.
    expect(parseTable(SAMPLE, lookupIn('mode = "b"\ncount = "x"\n')).problems.map(formatProblem)).toEqual([
      's.toml: count: expected a whole number ≥ 0, got "x"',
    ]);
  });

  it("reports a required setting that is missing", () => {
    const t = defineTable({
      name: "env",
      entries: { home: setting({ name: "HOME", type: tomlString, default: "", required: true, doc: "h" }) },
    });
    const r = parseTable(t, () => undefined);
    expect(r.problems.map(formatProblem)).toEqual(["HOME: not set; expected a string"]);
    expect(new ConfigError(r.problems)).toMatchObject({
      code: "CONFIG",
      message: "HOME: not set; expected a string",
    });
  });

  it("renders a commented TOML file that reads back to the same settings, for any settings", () => {
    const arbitrary = fc.record({
      // Any text, and text made of what a TOML string must escape.
      label: fc.oneof(
        fc.string({ unit: "binary" }),
        fc.string({ unit: fc.constantFrom("\x7f", "\n", "\t", '"', "\\", "\u0000", "\u001f", "é", "𝄞") }),
      ),
      mode: fc.constantFrom("a" as const, "b" as const),
      count: fc.integer({ min: 5, max: Number.MAX_SAFE_INTEGER }),
      net: fc.record({
        on: fc.boolean(),
        wait: fc.integer({ min: 0, max: 10 ** 9 }),
        even: fc.integer({ min: 1, max: 10 ** 6 }).map((n) => n * 2),
      }),
    });
    fc.assert(
      fc.property(arbitrary, (config) => {
        const text = renderToml(SAMPLE, config, ["sample"]);
        expect(parseTable(SAMPLE, lookupIn(text))).toEqual({ config, problems: [] });
      }),
    );
  });

  it("renders each key under its description and unit, sections under banners", () => {
    const text = renderToml(SAMPLE, tableDefaults(SAMPLE), ["sample file"]);
    expect(text).toContain('# How many. In items.\ncount = "3"\n');
    expect(text).toContain("[net]\n# Serve.\non = true\n");
    expect(text).toContain('# How long.\nwait = "1.5s"\n');
    expect(text.startsWith("# sample file\n\n####")).toBe(true);
    expect(text).toMatch(/###\s+Network\s+###/);
  });

  it("replaces generated regions of a document and refuses a document without them", () => {
    const doc = "intro\n<!-- generated: t -->\nold\n<!-- end generated: t -->\nend\n";
    expect(withGeneratedRegions(doc, { t: "new\n" })).toBe(
      "intro\n<!-- generated: t -->\nnew\n<!-- end generated: t -->\nend\n",
    );
    expect(() => withGeneratedRegions("intro\n", { t: "new\n" })).toThrow(/no region "t"/);
  });
});
