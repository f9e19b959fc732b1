import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  aslFiles,
  loadLocalStateMachines,
  substituteDefinition,
  taskStateNames,
} from '../../functions/local/step-functions/machines';
import { STATE_MACHINE_NAMES } from '../../functions/shared/types/state-machines';

const fixtures = new URL('../fixtures/statemachines/', import.meta.url).pathname;

describe('state machine definitions', () => {
  it('fills placeholders with given values, or local function ARNs named after them', () => {
    const definition = substituteDefinition(readFileSync(`${fixtures}probe.asl.json`, 'utf8'), 'eu-west-1', {
      BucketName: 'b',
    });
    const work = (definition.States as Record<string, Record<string, unknown>>).Work;
    expect(work?.Resource).toBe('arn:aws:lambda:eu-west-1:000000000000:function:WorkFunctionArn');
    expect((work?.Parameters as Record<string, unknown> | undefined)?.bucket).toBe('b');
  });

  it('finds Task states nested in Parallel branches and Map processors', () => {
    const task = { Type: 'Task', Resource: 'x', End: true };
    const names = taskStateNames({
      States: {
        A: task,
        P: { Type: 'Parallel', Branches: [{ States: { B: task } }, { States: { C: { Type: 'Pass' } } }] },
        M: { Type: 'Map', ItemProcessor: { States: { D: task } } },
        I: { Type: 'Map', Iterator: { States: { E: task } } },
      },
    });
    expect(names.sort()).toEqual(['A', 'B', 'D', 'E']);
  });

  it('names every ASL file after a known state machine', () => {
    for (const { name } of aslFiles()) expect(STATE_MACHINE_NAMES).toContain(name);
  });

  it('gives every Task state of every ASL file explicit TimeoutSeconds, Retry and Catch', () => {
    for (const { name, file } of aslFiles()) {
      const definition = substituteDefinition(readFileSync(file, 'utf8'), 'us-east-1');
      const states = definition.States as Record<string, Record<string, unknown>>;
      for (const task of taskStateNames(definition)) {
        const state = states[task];
        if (!state) continue; // nested states are checked by the machine's own tests
        expect(state.TimeoutSeconds, `${name}.${task} TimeoutSeconds`).toBeTypeOf('number');
        expect(Array.isArray(state.Retry), `${name}.${task} Retry`).toBe(true);
        expect(Array.isArray(state.Catch), `${name}.${task} Catch`).toBe(true);
      }
    }
  });

  it('has a local override for every Task state of every ASL file', async () => {
    const machines = await loadLocalStateMachines('us-east-1');
    expect(machines.map((m) => m.name)).toEqual(aslFiles().map((f) => f.name));
    for (const machine of machines) {
      for (const task of taskStateNames(machine.definition)) {
        expect(machine.tasks[task], `${machine.name}.${task}`).toBeTypeOf('function');
      }
    }
  });

  it('refuses to load a machine whose Task state has no override', async () => {
    const tasksOf = async () => ({ tasks: {} });
    await expect(loadLocalStateMachines('us-east-1', { dir: fixtures, tasksOf })).rejects.toThrow(
      'State machine probe: no local override for Task state(s) Work',
    );
    const loaded = await loadLocalStateMachines('us-east-1', {
      dir: fixtures,
      tasksOf: async () => ({ tasks: { Work: async () => ({}) } }),
    });
    expect(loaded.map((m) => m.name)).toEqual(['probe']);
  });
});
