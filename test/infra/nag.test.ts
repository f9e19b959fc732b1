import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../lib/app';
import { testContext } from './synth';

interface Finding {
  path: string;
  rule: string;
  severity: string;
}

/** Every AwsSolutions finding, error or warning, that no acknowledgement covers. */
const unacknowledgedFindings = (scope: IConstruct): Finding[] =>
  new AwsSolutionsChecks().validateScope(scope).violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => ({
      path: resource.constructPath ?? '?',
      rule: violation.ruleName,
      severity: violation.severity ?? '?',
    })),
  );

interface Acknowledgement {
  path: string;
  id: string;
  reason: string;
}

/**
 * Builds the app while recording its acknowledgements instead of applying them, so the findings they
 * answer are all reported. Synthesis itself must then fail on them.
 */
const appWithoutAcknowledgements = (): { app: App; acknowledgements: Acknowledgement[] } => {
  const acknowledgements: Acknowledgement[] = [];
  const spy = vi.spyOn(Validations.prototype, 'acknowledge').mockImplementation(function (
    this: Validations,
    ...rules
  ) {
    const scope = (this as unknown as { scope: IConstruct }).scope;
    for (const rule of rules) acknowledgements.push({ path: scope.node.path, ...rule });
  });
  try {
    const { app } = createApp({ context: { ...testContext(), 'aws:cdk:bundling-stacks': [] } });
    return { app, acknowledgements };
  } finally {
    spy.mockRestore();
  }
};

// Findings do not depend on the bundles, so this file synthesizes without bundling. A synthesis that the
// checks stop is kept, so the first test lists the findings instead of failing the whole file.
const outdir = mkdtempSync(join(tmpdir(), 'nag-'));
let app: App;
let synthesisError: unknown;
beforeAll(() => {
  ({ app } = createApp({ outdir, context: { ...testContext(), 'aws:cdk:bundling-stacks': [] } }));
  try {
    app.synth();
  } catch (error) {
    synthesisError = error;
  }
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged finding, error or warning', () => {
    expect(unacknowledgedFindings(app)).toEqual([]);
    expect(synthesisError).toBeUndefined();
  });

  it('fails synthesis on any finding that is not acknowledged', () => {
    const { app, data } = createApp({ context: { ...testContext(), 'aws:cdk:bundling-stacks': [] } });
    new Bucket(data, 'Unchecked');
    expect(() => app.synth()).toThrow(/AwsSolutions-S10/);
  });

  it('acknowledges exactly the findings the app has, each one where it arises and with a reason', () => {
    const { app, acknowledgements } = appWithoutAcknowledgements();
    expect(() => app.synth()).toThrow(/ValidationFailed|AwsSolutions/);
    const findings = unacknowledgedFindings(app);
    expect(findings.length).toBeGreaterThan(0);

    const covers = (ack: Acknowledgement, finding: Finding) =>
      ack.id === finding.rule && (finding.path === ack.path || finding.path.startsWith(`${ack.path}/`));
    const uncovered = findings.filter((f) => !acknowledgements.some((a) => covers(a, f)));
    const unused = acknowledgements.filter((a) => !findings.some((f) => covers(a, f)));
    expect(uncovered).toEqual([]);
    expect(unused).toEqual([]);

    for (const ack of acknowledgements) {
      expect(ack.path, ack.id).not.toMatch(/^[^/]+$/); // never a whole stack
      expect(ack.reason.length, `${ack.path} ${ack.id}`).toBeGreaterThan(40);
    }
  });

  it('finds what it is not told to ignore (the checks are live)', () => {
    const app = new App();
    new Bucket(new Stack(app, 'Probe'), 'Plain');
    expect(unacknowledgedFindings(app).map((f) => f.rule)).toEqual(
      expect.arrayContaining(['AwsSolutions-S1', 'AwsSolutions-S10']),
    );
  });
});
