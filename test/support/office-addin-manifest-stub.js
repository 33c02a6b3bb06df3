// office-addin-mock requires office-addin-manifest for a feature the tests do not use; the real
// package pulls ESM-only dependencies jest cannot load. See jest.config.js.
module.exports = {};
