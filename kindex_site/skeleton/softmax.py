"""The example problem: a row softmax of a 4096 × 4096 float32 matrix. This module is its workload
(the reference code and its inputs). The example run's timing of it is made up, not a measurement:
replace it with a real timing of your own before ranking a run against it (README.md, Add runs)."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(4096, 4096, device="cuda")]
