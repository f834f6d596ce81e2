"""Skill registries backed by a service (google-adk 2.x's `integrations.skill_registry`)."""

from .gcp_skill_registry import GCPSkillRegistry

__all__ = ["GCPSkillRegistry"]
