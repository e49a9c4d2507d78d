"""The ``self`` target on AP bundles: reading (receipt engine extraction), documents, controls."""
