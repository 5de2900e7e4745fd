// One EC2 CreateFleet and one DynamoDB PutItem sent to a local HTTP server, returning what went over the wire and
// what the client made of the answers. stacks/bundle.test.ts runs it twice: in the test process with the SDK from
// node_modules, and inside a function bundle (stacks/testing/bundle-probe.ts) with the prebuilt, tree-shaken SDK and
// the Lambda credential shim, and expects the same requests and results.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateFleetCommand, EC2Client } from '@aws-sdk/client-ec2';

export interface SdkProbeResult {
  requests: { path: string; target?: string; credential?: string; body: string }[];
  fleetInstances: string[];
  fleetErrors: string[];
  putItemError: string;
}

const FLEET_RESPONSE = `<?xml version="1.0" encoding="UTF-8"?>
<CreateFleetResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>probe</requestId>
  <fleetId>fleet-probe</fleetId>
  <errorSet><item><errorCode>InsufficientInstanceCapacity</errorCode><errorMessage>none left</errorMessage>
    <launchTemplateAndOverrides><overrides><instanceType>m5.xlarge</instanceType></overrides></launchTemplateAndOverrides>
  </item></errorSet>
  <fleetInstanceSet><item><instanceIds><item>i-0123456789abcdef0</item></instanceIds>
    <instanceType>m5.large</instanceType><lifecycle>spot</lifecycle></item></fleetInstanceSet>
</CreateFleetResponse>`;

const read = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => resolve(body));
  });

export async function runSdkProbe(): Promise<SdkProbeResult> {
  const requests: SdkProbeResult['requests'] = [];
  const server = createServer(async (req, res) => {
    const body = await read(req);
    const target = req.headers['x-amz-target'] as string | undefined;
    const credential = /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1];
    requests.push({ path: req.url ?? '', ...(target ? { target } : {}), ...(credential ? { credential } : {}), body });
    if (target) {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(
        JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
          message: 'probe',
        }),
      );
    } else {
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(FLEET_RESPONSE);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const ec2 = new EC2Client({ endpoint, region: 'us-east-1', maxAttempts: 1 });
    const fleet = await ec2.send(
      new CreateFleetCommand({
        Type: 'instant',
        ClientToken: 'claim-uid-1',
        TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'spot' },
        SpotOptions: { AllocationStrategy: 'price-capacity-optimized' },
        LaunchTemplateConfigs: [
          {
            LaunchTemplateSpecification: { LaunchTemplateName: 'karpless/default/abc', Version: '$Latest' },
            Overrides: [
              { InstanceType: 'm5.large', SubnetId: 'subnet-1', AvailabilityZone: 'us-east-1a' },
              { InstanceType: 'm5.xlarge', SubnetId: 'subnet-1', AvailabilityZone: 'us-east-1a', Priority: 1.5 },
            ],
          },
        ],
        TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'karpenter.sh/nodepool', Value: 'default' }] }],
      }),
    );
    const ddb = new DynamoDBClient({ endpoint, region: 'us-east-1', maxAttempts: 1 });
    const putItemError = await ddb
      .send(
        new PutItemCommand({
          TableName: 'karpless',
          Item: { pk: { S: 'claim#a' }, version: { N: '2' } },
          ConditionExpression: 'version = :v',
          ExpressionAttributeValues: { ':v': { N: '1' } },
        }),
      )
      .then(
        () => 'none',
        (e: Error) => e.name,
      );
    return {
      requests,
      fleetInstances: (fleet.Instances ?? []).flatMap((i) => i.InstanceIds ?? []),
      fleetErrors: (fleet.Errors ?? []).map(
        (e) => `${e.ErrorCode}:${e.LaunchTemplateAndOverrides?.Overrides?.InstanceType}`,
      ),
      putItemError,
    };
  } finally {
    server.close();
  }
}
