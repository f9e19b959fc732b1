import { readFileSync } from 'node:fs';
import { UsageError } from './target';

/**
 * Operator commands of company workflows:
 *   workflows put --company ID --file wf.json     prints {id, version}; saving again makes a new version
 *   workflows list --company ID
 *   workflows get --company ID --id W
 *   workflows delete --company ID --id W
 */
export const WORKFLOW_USAGE = `  workflows put --company ID --file wf.json   validates and saves the next version; prints {id, version}
  workflows list --company ID
  workflows get --company ID --id W
  workflows delete --company ID --id W`;

export interface WorkflowCommandValues {
  company?: string;
  file?: string;
  id?: string;
}

const need = (value: string | undefined, flag: string): string => {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${flag} is required`);
  return value.trim();
};

export const runWorkflowCommand = async (
  key: string,
  values: WorkflowCommandValues,
  now: Date,
): Promise<{ json: unknown; text: string } | undefined> => {
  if (!key.startsWith('workflows ')) return undefined;
  const { getCompany } = await import('../shared/data/companies');
  const { ValidationError } = await import('../shared/errors');
  const workflows = await import('../shared/domain/workflows/definitions');
  // A saved definition is checked against the action catalogue.
  (await import('../shared/operations/workflow-actions')).registerWorkflowActions();
  const companyId = need(values.company, 'company');
  if (!(await getCompany(companyId))) throw new Error(`no company ${companyId}`);
  switch (key) {
    case 'workflows put': {
      const file = need(values.file, 'file');
      let doc: unknown;
      try {
        doc = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw new UsageError(`cannot read ${file} as JSON: ${(error as Error).message}`);
      }
      try {
        const { id, version } = await workflows.saveWorkflow(companyId, doc, now);
        return { json: { id, version }, text: `saved workflow ${id} version ${version}` };
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        const lines = (error.errors ?? []).map((e) => `  ${e.pointer}: ${e.message}`).join('\n');
        throw new InvalidWorkflowError(`${file} is not a valid workflow:\n${lines}`, error.errors ?? []);
      }
    }
    case 'workflows list': {
      const list = await workflows.workflowSummaries(companyId);
      return {
        json: { workflows: list },
        text:
          list.map((w) => `${w.id}  v${w.version}  ${w.name}  (${w.steps} steps)`).join('\n') ||
          'no workflows',
      };
    }
    case 'workflows get': {
      const workflow = await workflows.getWorkflow(companyId, need(values.id, 'id'));
      return { json: workflow, text: JSON.stringify(workflow, null, 2) };
    }
    case 'workflows delete': {
      const deleted = await workflows.deleteWorkflow(companyId, need(values.id, 'id'), now);
      return { json: deleted, text: `deleted workflow ${deleted.id}` };
    }
    default:
      throw new UsageError(`unknown command: ${key}`);
  }
};

/** A definition refused on save: the CLI prints every violation (with `--json`, as `errors`). */
export class InvalidWorkflowError extends Error {
  constructor(
    message: string,
    readonly errors: { pointer: string; message: string }[],
  ) {
    super(message);
    this.name = 'InvalidWorkflowError';
  }
}
