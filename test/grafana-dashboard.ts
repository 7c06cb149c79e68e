import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

const DASHBOARD = join(dirname(fileURLToPath(import.meta.url)), "..", "docs", "grafana", "chaind-visor.json");

interface Dashboard {
  uid: string;
  templating: { list: { name: string }[] };
  panels: {
    id: number;
    type: string;
    gridPos?: object;
    targets?: { expr: string; datasource: { uid: string } }[];
  }[];
}

/**
 * The metric names docs/grafana/chaind-visor.json queries (histograms by their base name), after checking it is
 * a dashboard Grafana imports: a uid, the datasource and chain variables, panels with unique ids and a place,
 * each querying the chosen Prometheus datasource.
 */
export function grafanaDashboardMetrics(): string[] {
  const d = JSON.parse(readFileSync(DASHBOARD, "utf8")) as Dashboard;
  expect(d.uid).toBe("chaind-visor");
  expect(d.templating.list.map((v) => v.name)).toEqual(["datasource", "chain_id"]);
  expect(new Set(d.panels.map((p) => p.id)).size).toBe(d.panels.length);
  const exprs = d.panels.flatMap((p) => {
    expect(p.gridPos, `panel ${p.id}`).toBeDefined();
    if (p.type === "row") return [];
    expect(p.targets?.length, `panel ${p.id}`).toBeGreaterThan(0);
    return (p.targets ?? []).map((t) => {
      expect(t.datasource.uid).toBe(`$${"{datasource}"}`);
      return t.expr;
    });
  });
  // Label selectors ({chain_id=~"..."}) name labels, not metrics.
  const names = exprs.flatMap(
    (e) => e.replace(/\{[^}]*\}/g, "").match(/\b(?:cometbft|chain|visor)_[a-z_]+/g) ?? [],
  );
  return [...new Set(names.map((n) => n.replace(/_(bucket|sum|count)$/, "")))];
}

/** The metrics a Prometheus text declares (its `# TYPE` lines), whether or not they have samples yet. */
export function declaredMetrics(text: string): Set<string> {
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
}
