import { describe, expect, it } from 'vitest';
import { dynamoDocumentClient, ec2Client, pricingClient } from './clients';

describe('AWS client factory', () => {
  it('reuses one client per service and settings, configured for adaptive retries', async () => {
    const a = ec2Client({ region: 'eu-west-1' });
    expect(ec2Client({ region: 'eu-west-1' })).toBe(a);
    expect(ec2Client({ region: 'us-west-2' })).not.toBe(a);
    expect(await a.config.region()).toBe('eu-west-1');
    expect(await a.config.maxAttempts()).toBe(5);
    expect(await a.config.retryStrategy()).toMatchObject({ mode: 'adaptive' });
    expect(dynamoDocumentClient()).toBe(dynamoDocumentClient());
  });

  it('sends Pricing calls to us-east-1 unless told otherwise', async () => {
    expect(await pricingClient({}).config.region()).toBe('us-east-1');
  });
});
