import { createInterface } from "node:readline";

/**
 * Answers to prompts: read from the terminal when there is one, otherwise line by line from piped stdin, as
 * Cosmos CLIs take mnemonics and passphrases.
 */
export class InputLines {
  private lines: string[] | null = null;

  constructor(private readonly input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin) {}

  private async piped(): Promise<string[]> {
    if (!this.lines) {
      this.lines = [];
      const rl = createInterface({ input: this.input, crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of rl) this.lines.push(line);
    }
    return this.lines;
  }

  async ask(prompt: string): Promise<string> {
    if (this.input.isTTY) {
      const rl = createInterface({ input: this.input, output: process.stderr });
      const answer = await new Promise<string>((resolve) => rl.question(prompt, resolve));
      rl.close();
      return answer;
    }
    const lines = await this.piped();
    const next = lines.shift();
    if (next === undefined) throw new Error(`no input for "${prompt.trim()}": stdin is not a terminal and has no more lines`);
    return next;
  }
}
