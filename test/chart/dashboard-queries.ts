// Every PromQL query of the chart's Grafana dashboard (panel targets, rows' nested panels, template
// variables), read into what it selects, so the tests that hold it to the exporters see all of them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promqlRefs, type PromqlRefs } from '../support/promql-refs.js';
import { chartDir } from './helm-run.js';

export const dashboardPath = join(chartDir, 'dashboards', 'gw.json');

interface Panel {
  title?: string;
  type?: string;
  targets?: { refId?: string; expr?: string; legendFormat?: string }[];
  panels?: Panel[];
}

interface Variable {
  name: string;
  type: string;
  query?: string | { query?: string };
}

export interface Dashboard {
  panels: Panel[];
  templating?: { list: Variable[] };
}

export interface DashboardQuery {
  /** `panel "Title" A` or `variable gateway`. */
  where: string;
  expr: string;
  refs: PromqlRefs;
  /** `{{label}}` names of the legend. */
  legendLabels: string[];
}

export function readDashboard(path = dashboardPath): Dashboard {
  return JSON.parse(readFileSync(path, 'utf8')) as Dashboard;
}

export function dashboardQueries(dashboard: Dashboard): DashboardQuery[] {
  const out: DashboardQuery[] = [];
  const walk = (panels: Panel[]) => {
    for (const panel of panels) {
      for (const t of panel.targets ?? []) {
        const where = `panel ${JSON.stringify(panel.title)} ${t.refId ?? ''}`.trim();
        if (typeof t.expr !== 'string' || t.expr.trim() === '') throw new Error(`${where}: has no PromQL expr`);
        const legendLabels = [...(t.legendFormat ?? '').matchAll(/\{\{\s*([a-zA-Z_]\w*)\s*\}\}/g)].map(
          (m) => m[1] as string,
        );
        out.push({ where, expr: t.expr, refs: promqlRefs(t.expr), legendLabels });
      }
      walk(panel.panels ?? []);
    }
  };
  walk(dashboard.panels);
  for (const v of dashboard.templating?.list ?? []) {
    if (v.type !== 'query') continue;
    const query = typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
    // label_values(<series selector>, <label>): the selector is PromQL, the label is read from it.
    const m = /^\s*label_values\((.*),\s*([a-zA-Z_]\w*)\s*\)\s*$/s.exec(query);
    if (!m) throw new Error(`variable ${v.name}: only label_values(selector, label) queries are checked, got ${query}`);
    const refs = promqlRefs(m[1] as string);
    refs.grouping.push(m[2] as string);
    out.push({ where: `variable ${v.name}`, expr: m[1] as string, refs, legendLabels: [] });
  }
  return out;
}
