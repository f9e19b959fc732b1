import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiStack } from './api-stack';
import { DataStack } from './data-stack';

export interface PublicApiApp {
  app: App;
  data: DataStack;
  api: ApiStack;
}

/**
 * The CDK app: the stateful data stack, the API stack that uses it, and the cdk-nag AwsSolutions checks,
 * which run at synthesis and fail it on any finding that is not acknowledged.
 */
export const createApp = (props?: AppProps): PublicApiApp => {
  const app = new App(props);
  const data = new DataStack(app, 'PublicApiV1Data', {
    description: 'Public API v1: stateful data (table, bucket, JWT key set), retained on delete',
  });
  const api = new ApiStack(app, 'PublicApiV1', {
    description: 'Public API v1: REST API, authorizer and route group functions',
    data: {
      table: data.table,
      bucket: data.bucket,
      jwtKeys: data.jwtKeys,
      downloadSigner: data.downloadSigner.secret,
    },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, data, api };
};
