import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';

const root = process.cwd();
export const DASHBOARD = 'deploy/grafana/emailverify-dashboard.json';
export const ALERT_RULES = 'deploy/prometheus/emailverify-rules.yaml';

export interface Query {
  /** Where the query is: a panel's title or an alert's name. */
  where: string;
  expr: string;
}

/** Every PromQL expression of the Grafana dashboard's panels (rows' nested panels included). */
export function dashboardQueries(): Query[] {
  const dashboard = JSON.parse(readFileSync(path.join(root, DASHBOARD), 'utf8')) as {
    panels: Array<{ title: string; panels?: unknown[]; targets?: Array<{ expr?: string }> }>;
  };
  const queries: Query[] = [];
  const visit = (panels: typeof dashboard.panels) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? [])
        if (target.expr) queries.push({ where: `panel "${panel.title}"`, expr: target.expr });
      visit((panel.panels ?? []) as typeof dashboard.panels);
    }
  };
  visit(dashboard.panels);
  return queries;
}

/** Every alert rule's expression, from the Prometheus rule file. */
export function alertRuleQueries(file = ALERT_RULES): Query[] {
  const rules = parseYaml(readFileSync(path.join(root, file), 'utf8')) as {
    groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; expr: string }> }>;
  };
  return rules.groups.flatMap((group) =>
    group.rules.map((rule) => ({ where: `rule ${rule.alert ?? rule.record}`, expr: rule.expr })),
  );
}

/**
 * The metric names a PromQL expression selects, read with Prometheus's own grammar (lezer-promql): the name of
 * every vector selector, in range vectors and subqueries too. A syntax error throws, naming where it is.
 */
export function metricNames(expr: string): string[] {
  const tree = parser.parse(expr);
  const names = new Set<string>();
  let error: number | undefined;
  tree.iterate({
    enter: (node) => {
      if (node.type.isError) error ??= node.from;
      if (node.name !== 'VectorSelector') return;
      const identifier = node.node.getChild('Identifier');
      if (identifier) names.add(expr.slice(identifier.from, identifier.to));
    },
  });
  if (error !== undefined) throw new Error(`PromQL syntax error at ${error} in: ${expr}`);
  return [...names];
}
