// Maps the tsconfig path aliases (@lorawan/*) to sources for jest, so tests run without a build.
const { compilerOptions } = require('../../tsconfig.base.json');

function pathsToModuleNameMapper() {
  const mapper = {};
  for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
    mapper[`^${alias.replace('/', '\\/')}$`] = `<rootDir>/${target}`;
  }
  return mapper;
}

module.exports = { pathsToModuleNameMapper };
