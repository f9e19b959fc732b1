import { describe, expect, it } from 'vitest';
import { conditionSchema } from '../../functions/shared/domain/workflows/conditions';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { workflowDefinitionBodySchema, workflowSchema } from '../../functions/shared/routes/workflow-schemas';

/**
 * A step's `if` has one grammar: the schema the evaluator's module exports is the very object the route
 * schemas hold, and the document publishes it as a named, recursive, typed component.
 */
type Schema = {
  $ref?: string;
  type?: string;
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
};

const REF = '#/components/schemas/WorkflowCondition';

describe("a step's condition", () => {
  it('is the same schema object in the saved definition, the answered workflow and the evaluator', () => {
    const saved = workflowDefinitionBodySchema().shape.steps.element.shape.if.unwrap();
    const answered = workflowSchema().shape.steps.element.shape.if.unwrap();
    expect(saved).toBe(conditionSchema());
    expect(answered).toBe(conditionSchema());
  });

  it('is published as WorkflowCondition: one strict object per operator, nesting itself by reference', () => {
    const doc = buildOpenApiDocument() as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>
      >;
      components: { schemas: Record<string, Schema> };
    };
    const condition = doc.components.schemas.WorkflowCondition;
    expect(condition?.additionalProperties).toBeUndefined();
    const options = condition?.oneOf ?? [];
    const byOperator = Object.fromEntries(options.map((o) => [Object.keys(o.properties ?? {})[0], o]));
    expect(Object.keys(byOperator)).toEqual([
      'eq',
      'ne',
      'in',
      'exists',
      'gt',
      'gte',
      'lt',
      'lte',
      'contains',
      'startsWith',
      'isEmpty',
      'and',
      'or',
      'not',
    ]);
    for (const [operator, option] of Object.entries(byOperator)) {
      expect(option).toMatchObject({ type: 'object', required: [operator], additionalProperties: false });
    }
    for (const pair of ['eq', 'gte', 'contains', 'startsWith'])
      expect(byOperator[pair]?.properties?.[pair]).toMatchObject({ type: 'array', minItems: 2, maxItems: 2 });
    expect(byOperator.and?.properties?.and).toMatchObject({
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: { $ref: REF },
    });
    expect(byOperator.or?.properties?.or?.items).toEqual({ $ref: REF });
    expect(byOperator.not?.properties?.not).toEqual({ $ref: REF });

    const body = doc.paths['/v1/workflows/{id}']?.put?.requestBody?.content['application/json']?.schema;
    expect(body?.properties?.steps?.items?.properties?.if).toEqual({ $ref: REF });
    expect(doc.components.schemas.Workflow?.properties?.steps?.items?.properties?.if).toEqual({ $ref: REF });
  });
});
