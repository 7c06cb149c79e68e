import { describe, expect, it } from "vitest";
import { cobraMessage } from "../../../node/src/client/cobra-errors.js";
import { chaind } from "../helpers/chaind-process.js";

/** Issue 32: argument errors in one line, in cobra's words, as Cosmos operators and their scripts know them. */
describe("the command line's argument errors, as cobra prints them", () => {
  it("each error is one line in cobra's words, exit 1; a group without a subcommand prints its help, exit 0", async () => {
    const cases: [args: string[], stderr: string | null, stdout?: RegExp][] = [
      [["frobnicate"], 'Error: unknown command "frobnicate" for "chaind"'],
      [["query", "frob"], 'Error: unknown command "frob" for "chaind query"'],
      [["query", "bank", "frob"], 'Error: unknown command "frob" for "chaind query bank"'],
      [["status", "--frob"], "Error: unknown flag: --frob"],
      [["status", "--no-such-flag=1"], "Error: unknown flag: --no-such-flag"],
      [["tx", "bank", "send", "alice"], "Error: accepts 3 arg(s), received 1"],
      // An extra argument of a leaf is too many arguments, not an unknown command.
      [["tx", "bank", "send", "a", "b", "1stake", "extra"], "Error: accepts 3 arg(s), received 4"],
      [["query", "tx", "AB", "CD", "EF"], "Error: accepts 1 arg(s), received 3"],
      [["query", "block", "1", "2"], "Error: accepts at most 1 arg(s), received 2"],
      [["query", "bank", "params", "x"], 'Error: unknown command "x" for "chaind query bank params"'],
      [["keys", "list", "--output"], "Error: flag needs an argument: --output"],
      [
        ["keys", "list", "--output", "xml"],
        'Error: invalid argument "xml" for "--output" flag: must be one of text, json',
      ],
      [["query"], null, /^chaind query\n/],
      [["query", "bank"], null, /^chaind query bank\n[\s\S]*balances/],
      [["keys", "-h"], null, /^chaind keys\n[\s\S]*\badd\b/],
      [[], null, /^chaind <command>\n/],
    ];
    const results = await Promise.all(cases.map(([args]) => chaind(args)));
    results.forEach((r, i) => {
      const [args, stderr, stdout] = cases[i];
      if (stderr === null) {
        expect(r.exitCode, `chaind ${args.join(" ")}: ${r.stderr}`).toBe(0);
        expect(r.stdout).toMatch(stdout!);
      } else {
        expect(r.exitCode, `chaind ${args.join(" ")}`).toBe(1);
        expect(r.stderr, `chaind ${args.join(" ")}`).toBe(stderr);
      }
    });
  }, 60_000);

  it("translates each yargs validation message, and joins any other message onto one line", () => {
    expect(cobraMessage("Unknown arguments: frob-x, frobX", ["status", "--frob-x"], "chaind")).toBe(
      "unknown flag: --frob-x",
    );
    expect(cobraMessage("Unknown argument: q", ["status", "-q"], "chaind")).toBe(
      "unknown shorthand flag: 'q' in -q",
    );
    expect(cobraMessage("Too many non-option arguments: got 4, maximum of 2", [], "chaind")).toBe(
      "accepts at most 2 arg(s), received 4",
    );
    expect(cobraMessage("Missing required arguments: from, query", [], "chaind")).toBe(
      'required flag(s) "from", "query" not set',
    );
    expect(cobraMessage("Not enough arguments following: home", [], "chaind")).toBe(
      "flag needs an argument: --home",
    );
    expect(
      cobraMessage("Unknown arguments: x, y", ["gentx", "k", "1s", "x", "y"], "chaind", "gentx <k> [a]"),
    ).toBe("accepts between 1 and 2 arg(s), received 4");
    expect(cobraMessage("Unknown argument: x", ["q", "x"], "chaind", "query")).toBe(
      'unknown command "x" for "chaind q"',
    );
    expect(
      cobraMessage(
        'Invalid values:\n  Argument: shell, Given: "tcsh", Choices: "bash", "zsh", "fish"',
        ["completion", "tcsh"],
        "chaind",
        "completion <shell>",
      ),
    ).toBe('invalid argument "tcsh" for "chaind completion"');
    expect(cobraMessage("first\n  second", [], "chaind")).toBe("first second");
  });
});
