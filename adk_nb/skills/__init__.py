"""Agent skills: folders of instructions, references, assets and scripts a model loads when it needs them.

google-adk 2.13's `google.adk.skills`, name for name. Load a skill with `load_skill_from_dir`
(or build `Skill(frontmatter=Frontmatter(...), instructions=..., resources=Resources(...))`) and
give it to `adk_nb.tools.skill_toolset.SkillToolset`. The Google Cloud Storage loaders need
`google-cloud-storage`; without it they raise ImportError saying so.
"""

from ..utils.lazy import lazy_exports
from ._utils import _list_skills_in_dir as list_skills_in_dir
from ._utils import _list_skills_in_dir_async as list_skills_in_dir_async
from ._utils import _list_skills_in_gcs_dir as list_skills_in_gcs_dir
from ._utils import _list_skills_in_gcs_dir_async as list_skills_in_gcs_dir_async
from ._utils import _load_skill_from_dir as load_skill_from_dir
from ._utils import _load_skill_from_dir_async as load_skill_from_dir_async
from ._utils import _load_skill_from_gcs_dir as load_skill_from_gcs_dir
from ._utils import _load_skill_from_gcs_dir_async as load_skill_from_gcs_dir_async
from ._utils import _load_skills_from_dir as load_skills_from_dir
from ._utils import _load_skills_from_dir_async as load_skills_from_dir_async
from .models import Frontmatter, Resources, Script, Skill
from .skill_registry import SkillRegistry

__all__ = [
    "DEFAULT_SKILL_SYSTEM_INSTRUCTION", "Frontmatter", "Resources", "Script", "Skill", "SkillRegistry",
    "list_skills_in_dir", "list_skills_in_dir_async", "list_skills_in_gcs_dir", "list_skills_in_gcs_dir_async",
    "load_skill_from_dir", "load_skill_from_dir_async", "load_skill_from_gcs_dir", "load_skill_from_gcs_dir_async",
    "load_skills_from_dir", "load_skills_from_dir_async",
]


# google-adk still answers this old spelling (with a DeprecationWarning); its home is tools.skill_toolset.
__getattr__ = lazy_exports(__name__, {"DEFAULT_SKILL_SYSTEM_INSTRUCTION": "adk_nb.tools.skill_toolset"})
