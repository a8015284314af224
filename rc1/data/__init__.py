"""Datasets: official-format loaders, the Hugging Face source, the bundled real sample, source resolution.

    from rc1.data import load_tasks
    loaded = load_tasks("gsm8k", data_dir="../shared/data")   # -> LoadedTasks(records, source_kind, ...)
"""

from rc1.data.files import DATA_FILES, read_task_file
from rc1.data.sources import LoadedTasks, bundled_tasks, default_data_config, load_tasks, source_tags

__all__ = ["DATA_FILES", "LoadedTasks", "bundled_tasks", "default_data_config", "load_tasks", "read_task_file",
           "source_tags"]
