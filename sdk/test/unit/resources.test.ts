import { describe, expectTypeOf, it } from 'vitest';
import type { SuccessBody } from '../../src/operation-types.js';
import type {
  Company,
  DynadataItem,
  DynadataType,
  Event,
  EventType,
  EventWithDeliveries,
  Plan,
  Problem,
  SpeechVoice,
  TranscodeJob,
  TranscriptionJob,
  Usage,
  WebhookEndpoint,
  WebhookEvent,
  Workflow,
  WorkflowCondition,
  WorkflowRun,
} from '../../src/resources.js';

/**
 * The resource names resolve to the document's shapes: an alias that silently became `never` (an answer
 * that lost its JSON body, say) fails here at type-check time, and each keeps the fields its users read.
 */
describe('the resource types', () => {
  it('are read out of the document, none of them never', () => {
    expectTypeOf<Company['id']>().toEqualTypeOf<string>();
    expectTypeOf<Plan['limits']>().not.toBeNever();
    expectTypeOf<Usage>().not.toBeNever();
    expectTypeOf<DynadataType['name']>().toEqualTypeOf<string>();
    expectTypeOf<DynadataItem['_id']>().toEqualTypeOf<string>();
    expectTypeOf<DynadataItem['_version']>().toEqualTypeOf<number>();
    expectTypeOf<TranscodeJob['status']>().not.toBeNever();
    expectTypeOf<TranscriptionJob['id']>().toEqualTypeOf<string>();
    expectTypeOf<SpeechVoice['id']>().toEqualTypeOf<string>();
    expectTypeOf<Workflow['version']>().toEqualTypeOf<number>();
    expectTypeOf<WorkflowRun['status']>().not.toBeNever();
    expectTypeOf<WebhookEndpoint['url']>().toEqualTypeOf<string>();
    expectTypeOf<EventWithDeliveries['deliveries']>().not.toBeNever();
    expectTypeOf<Extract<Event, { type: 'transcode.done' }>['data']>().toEqualTypeOf<TranscodeJob>();
    expectTypeOf<'ping'>().toExtend<EventType>();
    expectTypeOf<Event>().toExtend<WebhookEvent>();
    expectTypeOf<Problem['code']>().not.toBeNever();
  });

  it("type a step's condition as the recursive grammar, not as any object", () => {
    expectTypeOf<NonNullable<Workflow['steps'][number]['if']>>().toEqualTypeOf<WorkflowCondition>();
    expectTypeOf<{ eq: ['{{ input.tier }}', 'gold'] }>().toExtend<WorkflowCondition>();
    expectTypeOf<{
      and: [{ exists: '{{ steps.call.output }}' }, { not: { in: ['x', ['y']] } }];
    }>().toExtend<WorkflowCondition>();
    expectTypeOf<{ maybe: true }>().not.toExtend<WorkflowCondition>();
    expectTypeOf<{ not: { maybe: true } }>().not.toExtend<WorkflowCondition>();
  });

  it('name operations by operationId, with every success status of the operation', () => {
    expectTypeOf<SuccessBody<'getTranscode'>['job']>().toEqualTypeOf<TranscodeJob>();
    // A run answers 200 when it finished and 202 when it continues: both shapes.
    expectTypeOf<SuccessBody<'runWorkflow', 202>>().toExtend<SuccessBody<'runWorkflow'>>();
    expectTypeOf<SuccessBody<'runWorkflow', 200>>().toExtend<SuccessBody<'runWorkflow'>>();
  });
});
