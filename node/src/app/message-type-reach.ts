import type { DescMessage } from "@bufbuild/protobuf";

/**
 * A memoised question about message types: whether a type, or any type reachable through its message fields
 * at any depth, matches `test` (types may contain themselves; each is looked at once). Walkers over answers ask it
 * first, so most messages need no visit at all.
 */
export function typeReach(test: (d: DescMessage) => boolean): (desc: DescMessage) => boolean {
  const known = new WeakMap<DescMessage, boolean>();
  return (desc) => {
    let answer = known.get(desc);
    if (answer === undefined) {
      const seen = new Set<DescMessage>([desc]);
      const todo = [desc];
      answer = false;
      while (todo.length > 0 && !answer) {
        const d = todo.pop()!;
        answer = test(d);
        for (const f of d.fields) {
          const m = f.fieldKind === "scalar" || f.fieldKind === "enum" ? undefined : f.message;
          if (m && !seen.has(m)) {
            seen.add(m);
            todo.push(m);
          }
        }
      }
      known.set(desc, answer);
    }
    return answer;
  };
}
