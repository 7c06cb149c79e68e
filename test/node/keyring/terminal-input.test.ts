import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { TerminalInput } from "../../../node/src/client/keyring/terminal-input.js";

function sink(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return Object.assign(w, { text: () => chunks.join("") });
}

describe("TerminalInput", () => {
  it("reads piped lines in order, prompts on the output stream, then reports the end", async () => {
    const input = new PassThrough();
    input.end("first\r\nsecond\n\nlast");
    const output = sink();
    const t = new TerminalInput({ input, output });
    expect(t.isTTY).toBe(false);
    expect(await t.readSecret("Pass:", "passphrase")).toBe("first");
    expect(await t.readLine("Line:", "line")).toBe("second");
    expect(await t.readLine("Empty:", "line")).toBe("");
    expect(await t.readLine("Last:", "line")).toBe("last");
    await expect(t.readLine("More:", "mnemonic")).rejects.toThrow("no mnemonic given: input ended");
    expect(output.text()).toContain("Pass:");
    t.close();
  });

  it("waits for lines written later", async () => {
    const input = new PassThrough();
    const t = new TerminalInput({ input, output: sink() });
    const pending = t.readLine("> ", "line");
    setTimeout(() => input.write("late\n"), 10);
    expect(await pending).toBe("late");
    t.close();
  });

  it("does not echo secrets on a terminal", async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = sink();
    const t = new TerminalInput({ input, output });
    const secret = t.readSecret("Enter keyring passphrase:", "passphrase");
    input.write("hunter22\n");
    expect(await secret).toBe("hunter22");
    const visible = t.readLine("Name: ", "name");
    input.write("alice\n");
    expect(await visible).toBe("alice");
    t.close();
    expect(output.text()).toContain("Enter keyring passphrase:");
    expect(output.text()).not.toContain("hunter22");
    expect(output.text()).toContain("alice");
  });
});
