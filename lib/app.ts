import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiStack } from './api-stack';
import { DataStack } from './data-stack';
import { JobsStack } from './jobs-stack';
import { ObservabilityStack } from './observability-stack';

export interface PublicApiApp {
  app: App;
  data: DataStack;
  jobs: JobsStack;
  api: ApiStack;
  observability: ObservabilityStack;
}

/**
 * The CDK app: the stateful data stack, the jobs stack (state machines and their workers), the API stack,
 * the observability stack (alarms, dashboard), and the cdk-nag AwsSolutions checks, which run at synthesis
 * and fail it on any finding not acknowledged.
 */
export const createApp = (props?: AppProps): PublicApiApp => {
  const app = new App(props);
  const data = new DataStack(app, 'PublicApiV1Data', {
    description: 'Public API v1: stateful data (table, bucket, JWT key set), retained on delete',
  });
  const dataResources = {
    table: data.table,
    bucket: data.bucket,
    jwtKeys: data.jwtKeys,
    jwtPublicKeys: data.jwtPublicKeys,
  };
  const jobs = new JobsStack(app, 'PublicApiV1Jobs', {
    description: 'Public API v1: state machines and their workers (transcodes, message delivery, workflows)',
    data: {
      ...dataResources,
      cursorKey: data.cursorKey,
      workflowSecretsKey: data.workflowSecretsKey,
      // The message delivery worker signs the download URLs of file messages.
      downloadSigner: data.downloadSigner.secret,
    },
  });
  const api = new ApiStack(app, 'PublicApiV1', {
    description: 'Public API v1: REST API, authorizer and route group functions',
    data: {
      ...dataResources,
      stateMachines: jobs.stateMachines,
      queues: {
        'workflow-run': jobs.queues['workflow-run']?.queue,
        'webhook-delivery': jobs.queues['webhook-delivery']?.queue,
      },
      downloadSigner: data.downloadSigner.secret,
      cursorKey: data.cursorKey,
      workflowSecretsKey: data.workflowSecretsKey,
    },
    workflowSchedules: jobs.workflowSchedules,
    messageSchedules: jobs.messageSchedules,
  });
  const observability = new ObservabilityStack(app, 'PublicApiV1Observability', {
    description: 'Public API v1: alarms, alarm topic and dashboard',
    api,
    table: data.table,
    stateMachines: jobs.stateMachines,
    queues: jobs.queues,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, data, jobs, api, observability };
};
