// The one error every Lambda shim throws: the replaced code path needs something the functions never configure.
export function unsupported(what: string): never {
  throw new Error(
    `${what} is not supported in the Karpless Lambda bundle: the functions authenticate to EKS with their IAM role ` +
      '(shared/aws/eks-auth) and reach the API server directly (stacks/bundling.ts lists what is left out and why)',
  );
}
