/** A line of a command's answer on stdout, with its newline. */
export const out = (s: string) => process.stdout.write(s.endsWith("\n") ? s : `${s}\n`);
